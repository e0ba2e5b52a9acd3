package io.kodiak.exchange;

import io.kodiak.http.Violation;

/**
 * Every answer Kodiak gives in its own name, with the status the client sees, a one-line text
 * for the body and log, whether the client connection must close afterwards (the request's
 * framing can no longer be trusted), and a short cause for metrics.
 */
public enum ProxyError {
    NO_ROUTE(404, "no route matches this path", false, "no_route"),
    /** On a TLS listener: the Host is served under another certificate than the one this connection was made with. */
    MISDIRECTED(421, "this host is not served on this connection (its TLS server name is another)", false, "misdirected"),
    RATE_LIMITED(429, "too many requests (request limit exceeded)", false, "rate_limited"),
    REWRITE_TOO_COSTLY(400, "request path too costly to match against the route's rewrite rules", true, "bad_request"),
    BAD_REQUEST(400, "malformed request", true, "bad_request"),
    BAD_FIELD_NAME(400, "malformed header field name (not a token, or space before the colon)", true, "bad_request"),
    BAD_HOST(400, "missing, repeated or malformed Host header", true, "bad_request"),
    BAD_CONTENT_LENGTH(400, "malformed Content-Length (one decimal number expected)", true, "bad_request"),
    CONFLICTING_LENGTHS(400, "request has Content-Length fields with different values", true, "bad_request"),
    VERSION_NOT_SUPPORTED(505, "HTTP version not supported (HTTP/1.x only)", true, "bad_request"),
    CONTENT_NOT_ALLOWED(400, "request content not allowed with this method", true, "bad_request"),
    DOT_SEGMENT(400, "request path with a . or .. segment", true, "bad_request"),
    UNSUPPORTED_METHOD(501, "CONNECT and PRI are not supported: Kodiak opens no tunnels and speaks HTTP/1.1", true, "bad_request"),
    AMBIGUOUS_LENGTH(400, "request has both Content-Length and Transfer-Encoding", true, "bad_request"),
    UNSUPPORTED_TRANSFER_ENCODING(400, "request Transfer-Encoding other than chunked", true, "bad_request"),
    BROKEN_BODY(400, "malformed request body (invalid chunked encoding)", true, "bad_request"),
    URI_TOO_LONG(414, "request line larger than max-header-size", true, "bad_request"),
    HEADERS_TOO_LARGE(431, "request headers larger than max-header-size", true, "bad_request"),
    BODY_TOO_LARGE(413, "request body larger than max-body-size", true, "body_too_large"),
    DRAINING(503, "proxy is shutting down", true, "draining"),
    /** In flight when the grace period ran out: the stop closed the connections, not the client. */
    STOPPED(503, "proxy stopped at the end of its grace period before the response was complete", true, "stopped"),
    POOL_EXHAUSTED(503, "no upstream connection free within connect-timeout (max-connections reached)", false, "pool_exhausted"),
    /** The route's group has no server: every name it is made of has yet to resolve in DNS (resolve, discovery). */
    NO_SERVER(503, "the upstream group has no server (its names have not resolved)", false, "unresolved"),
    CONNECT_FAILED(502, "cannot connect to upstream", false, "connect"),
    CONNECT_TIMEOUT(504, "upstream connect timed out (connect-timeout)", false, "connect_timeout"),
    UPSTREAM_CLOSED(502, "upstream closed the connection before a complete response", false, "reset"),
    /** A retry after the server's own 502/503/504 found no other server left (one became unavailable meanwhile). */
    RETRY_EXHAUSTED(502, "upstream answered with an error status and no other server was left to try", false, "upstream_status"),
    UPSTREAM_TLS(502, "TLS handshake with the upstream failed", false, "upstream_tls"),
    INVALID_RESPONSE(502, "upstream sent an invalid response", false, "invalid_response"),
    RESPONSE_TIMEOUT(504, "upstream did not answer within response-timeout", false, "timeout"),
    REQUEST_BODY_STALLED(408, "request body stalled longer than idle-timeout", true, "client_timeout"),
    UPSTREAM_STALLED(504, "upstream stopped reading the request body for longer than idle-timeout", true, "stalled"),
    /** Only logged: a tunnel (after 101) closed for want of traffic either way. */
    TUNNEL_IDLE(504, "upgraded connection idle longer than idle-timeout", false, "tunnel_idle"),
    /** Only logged: the response had started, so the client connection is closed instead. */
    TRANSFER_STALLED(504, "response transfer stalled longer than idle-timeout", false, "stalled");

    public final int status;
    public final String text;
    public final boolean closeClient;
    public final String cause;
    /** The status line's reason phrase (RFC 9110 §15). */
    public final String reason;

    /** Every cause the metrics count: each error's, and the client leaving first. The one list of them. */
    public static java.util.List<String> causes() {
        java.util.Set<String> causes = new java.util.LinkedHashSet<>();
        for (ProxyError error : values()) {
            causes.add(error.cause);
        }
        causes.add(CLIENT_ABORT);
        return java.util.List.copyOf(causes);
    }

    /** The cause counted when the client left before its response was complete (logged as 499). */
    public static final String CLIENT_ABORT = "client_abort";

    public static ProxyError of(Violation violation) {
        return switch (violation) {
            case FIELD_NAME_NOT_TOKEN, FIELD_LINE_WITHOUT_COLON -> BAD_FIELD_NAME;
            case HOST_MISSING, HOST_REPEATED, HOST_INVALID -> BAD_HOST;
            case HEAD_TOO_LARGE -> HEADERS_TOO_LARGE;
            case REQUEST_LINE_TOO_LONG -> URI_TOO_LONG;
            case CONTENT_LENGTH_SYNTAX -> BAD_CONTENT_LENGTH;
            case CONFLICTING_CONTENT_LENGTHS -> CONFLICTING_LENGTHS;
            case TRANSFER_CODING_UNSUPPORTED -> UNSUPPORTED_TRANSFER_ENCODING;
            case CONTENT_LENGTH_WITH_TRANSFER_ENCODING -> AMBIGUOUS_LENGTH;
            case VERSION_NOT_SUPPORTED -> VERSION_NOT_SUPPORTED;
            default -> BAD_REQUEST;
        };
    }

    /**
     * What an answer's body adds to {@link #of}'s text for {@code violation}: the violation's own
     * words, or nothing where the error's text already states that very rule (a body that says
     * "malformed Content-Length" twice tells the client nothing more).
     */
    public static String detailOf(Violation violation) {
        return switch (violation) {
            case FIELD_NAME_NOT_TOKEN, CONTENT_LENGTH_SYNTAX, CONFLICTING_CONTENT_LENGTHS, TRANSFER_CODING_UNSUPPORTED,
                 CONTENT_LENGTH_WITH_TRANSFER_ENCODING, VERSION_NOT_SUPPORTED, REQUEST_LINE_TOO_LONG, HEAD_TOO_LARGE -> null;
            default -> violation.text();
        };
    }

    /**
     * The text/plain body of Kodiak's answer for this error, whatever protocol carries it: the
     * status and what it means, what exactly was wrong when known ({@code detail}), and for a 5xx
     * the request id of {@code requestNumber} (0: none). The access log counts its bytes.
     */
    public byte[] answerBody(String detail, long requestNumber) {
        StringBuilder body = new StringBuilder(96).append(status).append(' ').append(text);
        if (detail != null) {
            body.append(": ").append(detail);
        }
        body.append('\n');
        if (requestNumber != 0 && status >= 500) {
            body.append("request id: ").append(RequestIds.format(requestNumber)).append('\n');
        }
        return body.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    ProxyError(int status, String text, boolean closeClient, String cause) {
        this.status = status;
        this.text = text;
        this.closeClient = closeClient;
        this.cause = cause;
        this.reason = switch (status) {
            case 400 -> "Bad Request";
            case 404 -> "Not Found";
            case 408 -> "Request Timeout";
            case 413 -> "Content Too Large";
            case 414 -> "URI Too Long";
            case 421 -> "Misdirected Request";
            case 429 -> "Too Many Requests";
            case 431 -> "Request Header Fields Too Large";
            case 501 -> "Not Implemented";
            case 502 -> "Bad Gateway";
            case 503 -> "Service Unavailable";
            case 504 -> "Gateway Timeout";
            case 505 -> "HTTP Version Not Supported";
            default -> "Error";
        };
    }
}
