package io.kodiak.http;

/** Byte-level helpers for the US-ASCII parts of a head: case-insensitive matching and OWS trimming. */
public final class Ascii {
    private Ascii() {
    }

    /** True when {@code array} at {@code from} holds {@code lowerCase}, compared case-insensitively. */
    public static boolean equalsIgnoreCase(byte[] array, int from, byte[] lowerCase) {
        if (from + lowerCase.length > array.length) {
            return false;
        }
        for (int i = 0; i < lowerCase.length; i++) {
            int b = array[from + i];
            if (b >= 'A' && b <= 'Z') {
                b += 'a' - 'A';
            }
            if (b != lowerCase[i]) {
                return false;
            }
        }
        return true;
    }

    /** As {@link #equalsIgnoreCase(byte[], int, byte[])}, and the range is exactly that long. */
    public static boolean equalsIgnoreCase(byte[] array, int from, int to, byte[] lowerCase) {
        return to - from == lowerCase.length && equalsIgnoreCase(array, from, lowerCase);
    }

    /** The first index at or after {@code from} that is not SP or HTAB (OWS), at most {@code to}. */
    public static int skipOws(byte[] array, int from, int to) {
        while (from < to && (array[from] == ' ' || array[from] == '\t')) {
            from++;
        }
        return from;
    }

    /** The index after the last byte before {@code to} that is not SP or HTAB, at least {@code from}. */
    public static int trimOws(byte[] array, int from, int to) {
        while (to > from && (array[to - 1] == ' ' || array[to - 1] == '\t')) {
            to--;
        }
        return to;
    }

    static byte[] bytes(String ascii) {
        return ascii.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    /**
     * True when the comma-separated list in {@code [from, to)} has {@code lowerCase} as one of its
     * elements, whitespace around it and any ";parameters" after it aside (RFC 9110 §5.6.1).
     */
    public static boolean containsToken(byte[] array, int from, int to, byte[] lowerCase) {
        int i = from;
        while (i < to) {
            int end = i;
            while (end < to && array[end] != ',') {
                end++;
            }
            int e = i;
            while (e < end && array[e] != ';') {
                e++;
            }
            int s = skipOws(array, i, e);
            if (equalsIgnoreCase(array, s, trimOws(array, s, e), lowerCase)) {
                return true;
            }
            i = end + 1;
        }
        return false;
    }
}
