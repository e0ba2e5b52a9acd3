package io.kodiak.http;

/**
 * Every way a message can break HTTP/1.1's syntax that Kodiak refuses, named once (as Jetty names
 * its parser's violations) so that each codec maps a name to its answer (400, 414, 431, 505 for a
 * request; 502 for an upstream response) and no decision is ever taken on an exception's text.
 * Each text quotes the rule it enforces.
 */
public enum Violation {
    /** RFC 9112 §2.2: a bare CR (not followed by LF) anywhere in the head. */
    BARE_CR("bare CR in the message head"),
    /** A head that reached max-header-size before its end. */
    HEAD_TOO_LARGE("message head larger than max-header-size"),
    /** A request line that reached max-header-size before its end (414). */
    REQUEST_LINE_TOO_LONG("request line larger than max-header-size"),
    /** RFC 9110 §8.6: Content-Length = 1*DIGIT. */
    CONTENT_LENGTH_SYNTAX("malformed Content-Length (one decimal number expected)"),
    /** RFC 9112 §3: method = token. */
    METHOD_NOT_TOKEN("request method that is not a token"),
    /** RFC 9112 §3: request-line = method SP request-target SP HTTP-version (one SP each). */
    REQUEST_LINE_SYNTAX("malformed request line"),
    /** RFC 9112 §3.2, RFC 3986: visible US-ASCII only in the request target (no control byte, whitespace, fragment or raw byte above 0x7f). */
    TARGET_CHARACTER("control byte, whitespace, '#' or non-ASCII byte in the request target"),
    /**
     * RFC 3986 §3.3: a path holds pchar only; '\\', '"', '<', '>', '`', '{' and '}' travel
     * percent-encoded (browsers encode them). Raw, a backend that reads '\\' as '/' finds a path
     * segment the dot-segment check never saw.
     */
    PATH_CHARACTER("character that must be percent-encoded in the request path"),
    /**
     * RFC 3986 §2.1: pct-encoded = "%" HEXDIG HEXDIG. A stray '%' would make the decoding of
     * unreserved characters form a new encoding ("%%32%66" into "%2f") for the upstream to decode
     * again (nginx refuses it too).
     */
    PATH_PERCENT_ENCODING("'%' not followed by two hex digits in the request path"),
    /** RFC 9112 §3.2: origin-form or absolute-form (http/https); authority-form only with CONNECT; no asterisk-form (as nginx). */
    TARGET_FORM("request target in a form this method does not allow"),
    /** RFC 9112 §2.3: HTTP-version = "HTTP/" DIGIT "." DIGIT, case-sensitive. */
    VERSION_SYNTAX("malformed HTTP version"),
    /** RFC 9110 §15.6.6: a major version other than 1. */
    VERSION_NOT_SUPPORTED("HTTP version not supported"),
    /** RFC 9112 §4: status-line = HTTP-version SP 3DIGIT SP [ reason-phrase ]. */
    STATUS_LINE_SYNTAX("malformed status line"),
    /** RFC 9110 §5.1, RFC 9112 §5.1: field-name = token, no whitespace before the colon. */
    FIELD_NAME_NOT_TOKEN("header field name that is not a token, or whitespace before the colon"),
    /** RFC 9112 §5: a field line without a colon. */
    FIELD_LINE_WITHOUT_COLON("header field line without a colon"),
    /** RFC 9110 §5.5: CR, LF, NUL and other controls (HTAB aside) are invalid in a field value. */
    FIELD_VALUE_CHARACTER("control byte (CR, LF, NUL or other) in a header field value"),
    /** RFC 9112 §5.2: obsolete line folding; a recipient may reject it, and Kodiak does. */
    OBS_FOLD("obsolete line folding in a header field"),
    /** RFC 9112 §2.2: in chunked framing and trailers every line ends with CRLF. */
    BARE_LF("line ended by LF alone where CRLF is required (chunked framing)"),
    /** RFC 9112 §3.2: an HTTP/1.1 request without a Host field. */
    HOST_MISSING("HTTP/1.1 request without a Host header field"),
    /** RFC 9112 §3.2: more than one Host field. */
    HOST_REPEATED("more than one Host header field"),
    /** RFC 9112 §3.2, RFC 3986 §3.2.2: Host = uri-host [ ":" port ]. */
    HOST_INVALID("Host header that is not a valid uri-host[:port]"),
    /** RFC 9110 §8.6: Content-Length fields with different values. */
    CONFLICTING_CONTENT_LENGTHS("Content-Length fields with different values"),
    /** RFC 9112 §6.1: chunked is the only transfer coding decoded, as one field of an HTTP/1.1 message. */
    TRANSFER_CODING_UNSUPPORTED("Transfer-Encoding other than one chunked field on HTTP/1.1"),
    /** RFC 9112 §6.1: Content-Length beside Transfer-Encoding (a smuggling vector). */
    CONTENT_LENGTH_WITH_TRANSFER_ENCODING("both Content-Length and Transfer-Encoding"),
    /** RFC 9112 §7.1: chunk-size = 1*HEXDIG, optionally followed by extensions, then CRLF. */
    CHUNK_SIZE_SYNTAX("malformed chunk-size line"),
    /** RFC 9112 §7.1.1: chunk-ext = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] ), val = token / quoted-string. */
    CHUNK_EXTENSION_SYNTAX("malformed chunk extension"),
    /** A 101 to a request that asked for no upgrade. */
    UNSOLICITED_SWITCH("101 Switching Protocols to a request that asked for no upgrade"),
    /** RFC 9110 §15.3.5, §15.3.6: a 204 or 205 announcing a body, which would be read as the next response. */
    BODY_ON_BODYLESS_STATUS("a body announced on a 204 or 205 response"),
    /** A chunk size no length can hold. */
    CHUNK_SIZE_OVERFLOW("chunk size too large"),
    /** A chunk-size line (size and extensions) over {@link ChunkedDecoder#MAX_CHUNK_LINE}. */
    CHUNK_LINE_TOO_LONG("chunk-size line too long"),
    /** RFC 9112 §7.1: chunk-data is exactly chunk-size octets, followed by CRLF. */
    CHUNK_DATA_NOT_TERMINATED("chunk data not followed by CRLF"),
    /** A trailer section over max-header-size. */
    TRAILER_TOO_LARGE("trailer section too large");

    private final String text;

    Violation(String text) {
        this.text = text;
    }

    /** One line for the answer's body and the log. */
    public String text() {
        return text;
    }
}
