package io.kodiak.http;

import java.nio.charset.StandardCharsets;

/**
 * The field names the proxy acts on; every other name is {@link #OTHER} and passes through as
 * bytes. Looked up by length first, then compared case-insensitively (RFC 9110 §5.1), so an
 * ordinary field costs a switch and at most two comparisons.
 */
public enum FieldName {
    HOST("host", false),
    CONTENT_LENGTH("content-length", false),
    /** RFC 9110 §7.6.1: hop-by-hop, and the framing is re-derived for the other side. */
    TRANSFER_ENCODING("transfer-encoding", true),
    CONNECTION("connection", true),
    KEEP_ALIVE("keep-alive", true),
    PROXY_CONNECTION("proxy-connection", true),
    TE("te", true),
    TRAILER("trailer", true),
    UPGRADE("upgrade", true),
    /** RFC 7540 §3.2.1: the settings of an h2c upgrade, connection-specific (and h2c is never relayed). */
    HTTP2_SETTINGS("http2-settings", true),
    /** Answered by the proxy itself (100 Continue), never forwarded. */
    EXPECT("expect", false),
    X_FORWARDED_FOR("x-forwarded-for", false),
    X_FORWARDED_PROTO("x-forwarded-proto", false),
    X_FORWARDED_HOST("x-forwarded-host", false),
    OTHER("", false);

    private static final FieldName[] VALUES = values();
    private final byte[] lowerCase;
    private final boolean hopByHop;

    FieldName(String lowerCase, boolean hopByHop) {
        this.lowerCase = lowerCase.getBytes(StandardCharsets.US_ASCII);
        this.hopByHop = hopByHop;
    }

    /** True for a token (RFC 9110 §5.6.2): a field name's syntax, the same bytes the parser accepts in one. */
    public static boolean isToken(CharSequence text) {
        if (text.isEmpty()) {
            return false;
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c > 0xff || !ByteClass.isTchar(c)) {
                return false;
            }
        }
        return true;
    }

    /** Hop-by-hop per RFC 9110 §7.6.1: meant for one connection, never forwarded as received. */
    public boolean isHopByHop() {
        return hopByHop;
    }

    static FieldName of(int ordinal) {
        return VALUES[ordinal];
    }

    /** The name in {@code array[from, to)}. */
    public static FieldName of(byte[] array, int from, int to) {
        return switch (to - from) {
            case 2 -> match(TE, array, from);
            case 4 -> match(HOST, array, from);
            case 6 -> match(EXPECT, array, from);
            case 7 -> either(TRAILER, UPGRADE, array, from);
            case 10 -> either(CONNECTION, KEEP_ALIVE, array, from);
            case 14 -> either(CONTENT_LENGTH, HTTP2_SETTINGS, array, from);
            case 15 -> match(X_FORWARDED_FOR, array, from);
            case 16 -> either(PROXY_CONNECTION, X_FORWARDED_HOST, array, from);
            case 17 -> either(TRANSFER_ENCODING, X_FORWARDED_PROTO, array, from);
            default -> OTHER;
        };
    }

    private static FieldName either(FieldName a, FieldName b, byte[] array, int from) {
        FieldName first = match(a, array, from);
        return first != OTHER ? first : match(b, array, from);
    }

    private static FieldName match(FieldName name, byte[] array, int from) {
        return Ascii.equalsIgnoreCase(array, from, name.lowerCase) ? name : OTHER;
    }
}
