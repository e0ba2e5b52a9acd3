package io.kodiak.http;

import org.glassfish.grizzly.http.HttpRequestPacket;
import org.glassfish.grizzly.http.Method;
import org.glassfish.grizzly.http.Protocol;
import org.glassfish.grizzly.http.util.DataChunk;
import org.glassfish.grizzly.http.util.MimeHeaders;

/**
 * The request rules that need more than one byte at a time, applied once the request line or the
 * header section is parsed (the bytes themselves were checked by {@link HeadScanner}): the form
 * of the request target, the version, and the Host field.
 */
public final class RequestChecks {
    private RequestChecks() {
    }

    /**
     * RFC 9112 §3.2 and §2.3, on the request line as parsed: the target is in origin-form
     * ("/...") or absolute-form ("http://" or "https://"); CONNECT's authority-form is refused
     * later, with 501; OPTIONS' asterisk-form names no path a route could match and is refused
     * here, as nginx does. The major version is 1. A minor version above 1
     * is answered as 1.1 (RFC 9110 §2.5: a recipient treats a higher minor version as the highest
     * it supports).
     */
    public static void checkRequestLine(HttpRequestPacket request) {
        DataChunk target = request.getRequestURIRef().getRequestURIBC();
        int first = target.getLength() == 0 ? -1 : Chunks.byteAt(target, 0);
        int authority = Chunks.startsWithIgnoreCase(target, "http://") ? 7
                : Chunks.startsWithIgnoreCase(target, "https://") ? 8 : -1;
        if (authority > 0) {
            // Grizzly makes the authority (up to the path) the request's Host: it must be one.
            requireValidHost(target, authority, endOfAuthority(target, authority));
        } else if (first != '/' && !request.getMethodDC().equals(Method.CONNECT.getMethodString())) {
            throw new HttpViolationException(Violation.TARGET_FORM);
        }
        DataChunk version = request.getProtocolDC();
        // "HTTP/" DIGIT "." DIGIT, as the scanner made sure.
        if (Chunks.byteAt(version, 5) != '1') {
            throw new HttpViolationException(Violation.VERSION_NOT_SUPPORTED);
        }
        if (Chunks.byteAt(version, 7) > '1') {
            request.setProtocol(Protocol.HTTP_1_1);
        }
    }

    /**
     * RFC 9112 §3.2: an HTTP/1.1 request has exactly one Host field, and every Host value is a
     * uri-host with an optional port. Called before Grizzly resolves an absolute-form target into
     * the Host field (which hides how many there were); the target's authority was checked with the
     * request line.
     */
    public static void checkHostFields(HttpRequestPacket request) {
        MimeHeaders headers = request.getHeaders();
        int hosts = 0;
        for (int i = 0; i < headers.size(); i++) {
            DataChunk name = headers.getName(i);
            if (name.getLength() == 4 && name.equalsIgnoreCase("host")) {
                if (++hosts > 1) {
                    throw new HttpViolationException(Violation.HOST_REPEATED);
                }
                requireValidHost(headers.getValue(i));
            }
        }
        if (hosts == 0 && request.getProtocol() == Protocol.HTTP_1_1) {
            throw new HttpViolationException(Violation.HOST_MISSING);
        }
    }

    /**
     * RFC 9110 §10.1.1: whether to answer 100 Continue. Grizzly flags any Expect field; only
     * "100-continue" is defined, other expectations are ignored (as nginx does), and an HTTP/1.0
     * client cannot take an interim response.
     */
    public static boolean expectsContinue(HttpRequestPacket request) {
        if (!request.requiresAcknowledgement() || request.getProtocol() != Protocol.HTTP_1_1) {
            return false;
        }
        DataChunk expect = request.getHeaders().getValue("expect");
        return expect != null && expect.equalsIgnoreCase("100-continue");
    }

    private static void requireValidHost(DataChunk host) {
        requireValidHost(host, 0, host.getLength());
    }

    private static void requireValidHost(DataChunk chunk, int from, int to) {
        if (!HostSyntax.isValid(chunk, from, to)) {
            throw new HttpViolationException(Violation.HOST_INVALID);
        }
    }

    /** Where an absolute-form target's authority ends: at its path, or at the end (the query is apart). */
    private static int endOfAuthority(DataChunk target, int from) {
        for (int i = from; i < target.getLength(); i++) {
            if (Chunks.byteAt(target, i) == '/') {
                return i;
            }
        }
        return target.getLength();
    }
}
