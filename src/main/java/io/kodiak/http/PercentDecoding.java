package io.kodiak.http;

/**
 * RFC 3986 §6.2.2.2: percent-encoded unreserved characters ("%61" for "a", "%7E" for "~") name
 * the same resource as the characters themselves, so they are decoded before a path is routed
 * and forwarded. Everything else percent-encoded ("%2F", "%25", "%20") keeps its encoding: decoded,
 * it would change the path's structure or be decoded twice further on.
 */
final class PercentDecoding {
    private PercentDecoding() {
    }

    /** The US-ASCII text of {@code array[from, to)} with its unreserved percent-encodings decoded. */
    static String unreserved(byte[] array, int from, int to) {
        StringBuilder out = new StringBuilder(to - from);
        int i = from;
        while (i < to) {
            byte b = array[i];
            if (b == '%' && i + 2 < to) {
                int high = ByteClass.hexValue(array[i + 1]);
                int low = ByteClass.hexValue(array[i + 2]);
                if (high >= 0 && low >= 0 && ByteClass.isUnreserved(high << 4 | low)) {
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
}
