package io.kodiak.http;

import java.nio.charset.StandardCharsets;

/**
 * A request head as read from a client connection, checked against RFC 9112 §3 and §6 beyond
 * what {@link HeadScanner} checks byte by byte: the version, the form of the target, the Host
 * field, the framing. The values the proxy acts on are kept; the fields stay where they arrived
 * and are copied to the upstream as bytes.
 */
public final class RequestHead extends MessageHead {
    private static final byte[] HTTP_SCHEME = Ascii.bytes("http://");
    private static final byte[] HTTPS_SCHEME = Ascii.bytes("https://");
    private static final byte[] CONTINUE = Ascii.bytes("100-continue");
    private static final byte[] H2C = Ascii.bytes("h2c");
    private static final byte[] TRAILERS = Ascii.bytes("trailers");

    private RequestMethod method;
    private String methodName;
    private String path;
    private String query;
    private int hostField;
    private int authorityStart;
    private int authorityEnd;
    private boolean expectContinue;
    private int upgradeField;
    private boolean upgradeToH2c;

    /**
     * Parses the head {@code reader} has just completed. Throws {@link HttpViolationException}
     * for a version other than 1.x, a target in a form the method does not allow, a missing,
     * repeated or invalid Host, or framing fields that cannot be trusted.
     */
    public void parse(HeadReader reader) {
        array = reader.array();
        HeadLayout layout = reader.layout();
        int start = layout.start();
        int methodEnd = layout.methodEnd();
        int targetStart = methodEnd + 1;
        int targetEnd = layout.targetEnd();
        // "HTTP/" DIGIT "." DIGIT, as the scanner made sure.
        version(targetEnd + 6);
        method = RequestMethod.of(array, start, methodEnd);
        methodName = method == RequestMethod.OTHER
                ? new String(array, start, methodEnd - start, StandardCharsets.US_ASCII) : method.name();
        target(targetStart, targetEnd);
        hostField = -1;
        expectContinue = false;
        upgradeField = -1;
        upgradeToH2c = false;
        parseFields(reader);
        if (hostField < 0 && http11) {
            throw new HttpViolationException(Violation.HOST_MISSING);
        }
    }

    /**
     * RFC 9112 §3.2: origin-form ("/..."), or absolute-form with an http or https scheme, whose
     * authority must be a valid host and then stands for the Host field (§3.2.2). CONNECT's
     * authority-form is refused later with 501; asterisk-form names no path a route could match
     * and is refused here, as nginx does.
     */
    private void target(int from, int to) {
        authorityStart = authorityEnd = -1;
        int pathStart = from;
        if (array[from] != '/') {
            int scheme = Ascii.equalsIgnoreCase(array, from, HTTP_SCHEME) ? HTTP_SCHEME.length
                    : Ascii.equalsIgnoreCase(array, from, HTTPS_SCHEME) ? HTTPS_SCHEME.length : -1;
            if (scheme < 0) {
                if (method != RequestMethod.CONNECT) {
                    throw new HttpViolationException(Violation.TARGET_FORM);
                }
                path = new String(array, from, to - from, StandardCharsets.US_ASCII);
                query = null;
                return;
            }
            authorityStart = from + scheme;
            authorityEnd = authorityStart;
            while (authorityEnd < to && array[authorityEnd] != '/' && array[authorityEnd] != '?') {
                authorityEnd++;
            }
            if (!HostSyntax.isValid(array, authorityStart, authorityEnd)) {
                throw new HttpViolationException(Violation.HOST_INVALID);
            }
            pathStart = authorityEnd;
        }
        int queryMark = pathStart;
        boolean encoded = false;
        for (byte b; queryMark < to && (b = array[queryMark]) != '?'; queryMark++) {
            if (ByteClass.isPathExcluded(b & 0xff)) {
                throw new HttpViolationException(Violation.PATH_CHARACTER);
            }
            encoded |= b == '%';
        }
        path = queryMark == pathStart ? "/"
                : encoded ? PercentDecoding.unreserved(array, pathStart, queryMark)
                : new String(array, pathStart, queryMark - pathStart, StandardCharsets.US_ASCII);
        query = queryMark < to ? new String(array, queryMark + 1, to - queryMark - 1, StandardCharsets.US_ASCII) : null;
    }

    @Override
    void onField(FieldName name, int field) {
        switch (name) {
            case HOST -> {
                if (hostField >= 0) {
                    throw new HttpViolationException(Violation.HOST_REPEATED);
                }
                hostField = field;
                if (!HostSyntax.isValid(array, valueStart(field), valueEnd(field))) {
                    throw new HttpViolationException(Violation.HOST_INVALID);
                }
            }
            // RFC 9110 §10.1.1: only 100-continue is defined; other expectations are ignored (as
            // nginx does), and an HTTP/1.0 client cannot take an interim response.
            case EXPECT -> expectContinue = http11 && Ascii.equalsIgnoreCase(array, valueStart(field), valueEnd(field), CONTINUE);
            case UPGRADE -> {
                upgradeField = field;
                upgradeToH2c |= listsH2c(valueStart(field), valueEnd(field));
            }
            default -> {
            }
        }
    }

    public RequestMethod method() {
        return method;
    }

    /** The method as sent (a known one is a constant: no String per request). */
    public String methodName() {
        return methodName;
    }

    /**
     * The target's path, "/" for an absolute-form target without one. Percent-encoded unreserved
     * characters are decoded (RFC 3986 §6.2.2.2: "/%61pi" is "/api", and matches its route);
     * every other percent-encoding stays as sent.
     */
    public String path() {
        return path;
    }

    /** The query without its "?", or null. */
    public String query() {
        return query;
    }

    /** The Host field's index, or -1. */
    public int hostField() {
        return hostField;
    }

    /** True for an absolute-form target, whose authority stands for Host. */
    public boolean hasAuthority() {
        return authorityStart >= 0;
    }

    public int authorityStart() {
        return authorityStart;
    }

    public int authorityEnd() {
        return authorityEnd;
    }

    public boolean expectsContinue() {
        return expectContinue;
    }

    /** The Upgrade field's index, or -1. */
    public int upgradeField() {
        return upgradeField;
    }

    /**
     * RFC 9110 §7.8: asks to switch protocols (an Upgrade field, named by Connection; ignored in
     * HTTP/1.0). Not when it offers h2c: RFC 9113 §3.1 made that upgrade obsolete, and relayed it
     * would open a tunnel to the upstream that no route, rule or limit sees (Envoy drops it too);
     * the request goes on as an ordinary one, as to a server that ignores Upgrade.
     */
    public boolean asksUpgrade() {
        return upgradeField >= 0 && hasUpgradeOption() && http11 && !upgradeToH2c;
    }

    /** True when the Upgrade value in {@code [from, to)} lists h2c (a comma-separated list; RFC 9110 §7.8). */
    private boolean listsH2c(int from, int to) {
        int i = from;
        while (i < to) {
            int end = i;
            while (end < to && array[end] != ',') {
                end++;
            }
            int s = i;
            int e = end;
            while (s < e && (array[s] == ' ' || array[s] == '\t')) {
                s++;
            }
            while (e > s && (array[e - 1] == ' ' || array[e - 1] == '\t')) {
                e--;
            }
            if (Ascii.equalsIgnoreCase(array, s, e, H2C)) {
                return true;
            }
            i = end + 1;
        }
        return false;
    }

    /** The client sent TE with "trailers" (RFC 9110 §10.1.4): it takes trailer fields in a chunked response. */
    public boolean acceptsTrailers() {
        for (int i = 0; i < fieldCount(); i++) {
            if (name(i) == FieldName.TE && Ascii.containsToken(array, valueStart(i), valueEnd(i), TRAILERS)) {
                return true;
            }
        }
        return false;
    }

    /** True when a body follows the head (RFC 9112 §6.3: a request without framing fields has none). */
    public boolean hasBody() {
        return isChunked() || contentLength() > 0;
    }
}
