package io.kodiak.http;

/**
 * RFC 3986 §6.2.2.2: percent-encoded unreserved characters ("%61" for "a", "%7E" for "~") name
 * the same resource as the characters themselves, so they are decoded before a path is routed
 * and forwarded. Everything else percent-encoded ("%2F", "%25", "%20") keeps its encoding: decoded,
 * it would change the path's structure or be decoded twice further on.
 */
public final class PercentDecoding {
    private PercentDecoding() {
    }

    /**
     * The US-ASCII text of {@code array[from, to)} with its unreserved percent-encodings decoded.
     * Throws {@link HttpViolationException} for a '%' not followed by two hex digits.
     */
    static String unreserved(byte[] array, int from, int to) {
        StringBuilder out = new StringBuilder(to - from);
        int i = from;
        while (i < to) {
            byte b = array[i];
            if (b == '%') {
                int high = i + 2 < to ? ByteClass.hexValue(array[i + 1]) : -1;
                int low = i + 2 < to ? ByteClass.hexValue(array[i + 2]) : -1;
                if (high < 0 || low < 0) {
                    throw new HttpViolationException(Violation.PATH_PERCENT_ENCODING);
                }
                if (ByteClass.isUnreserved(high << 4 | low)) {
                    out.append((char) (high << 4 | low));
                    i += 3;
                    continue;
                }
            }
            out.append((char) (b & 0xff));
            i++;
        }
        return out.toString();
    }

    /**
     * A configured path (a route's prefix) as requests are matched against it, or null when it
     * holds a '%' not followed by two hex digits.
     */
    public static String unreserved(String path) {
        byte[] bytes = path.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        try {
            return unreserved(bytes, 0, bytes.length);
        } catch (HttpViolationException malformed) {
            return null;
        }
    }

    /** True when {@code path} holds a character a request path may not hold raw (it would be refused with 400). */
    public static boolean hasExcludedCharacter(String path) {
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c < 256 && ByteClass.isPathExcluded(c)) {
                return true;
            }
        }
        return false;
    }
}
