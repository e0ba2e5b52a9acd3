package io.kodiak.http;

/** The request methods the proxy treats specially; any other token is {@link #OTHER} and forwarded as sent. */
public enum RequestMethod {
    GET(true), HEAD(true), POST(false), PUT(true), DELETE(true), OPTIONS(true), TRACE(true), PATCH(false),
    CONNECT(false), PRI(false), OTHER(false);

    private static final RequestMethod[] KNOWN = {GET, HEAD, POST, PUT, DELETE, OPTIONS, TRACE, PATCH, CONNECT, PRI};
    private final boolean idempotent;
    private final byte[] bytes;

    RequestMethod(boolean idempotent) {
        this.idempotent = idempotent;
        this.bytes = Ascii.bytes(name());
    }

    /** RFC 9110 §9.2.2. */
    public boolean isIdempotent() {
        return idempotent;
    }

    /** Methods are case-sensitive (RFC 9110 §9.1): "get" is some other method. */
    static RequestMethod of(byte[] array, int from, int to) {
        for (RequestMethod method : KNOWN) {
            byte[] name = method.bytes;
            if (name.length == to - from && java.util.Arrays.equals(array, from, to, name, 0, name.length)) {
                return method;
            }
        }
        return OTHER;
    }
}
