package io.kodiak.http;

/** The byte classes of RFC 9110 §5.6.2 and RFC 9112 that the scanners test, one table lookup each. */
final class ByteClass {
    private static final boolean[] TCHAR = new boolean[256];
    private static final boolean[] FIELD_VCHAR = new boolean[256];
    private static final boolean[] TARGET = new boolean[256];
    private static final boolean[] FIELD_VALUE = new boolean[256];
    private static final boolean[] PATH_EXCLUDED = new boolean[256];
    private static final boolean[] UNRESERVED = new boolean[256];

    static {
        for (int c = '0'; c <= '9'; c++) {
            TCHAR[c] = true;
        }
        for (int c = 'a'; c <= 'z'; c++) {
            TCHAR[c] = true;
            TCHAR[c - 'a' + 'A'] = true;
        }
        for (char c : "!#$%&'*+-.^_`|~".toCharArray()) {
            TCHAR[c] = true;
        }
        // VCHAR and obs-text: what a field value, a reason phrase or a request target may hold
        // besides whitespace. Everything below 0x21 and DEL (the CTLs, SP) is excluded.
        for (int c = 0x21; c < 256; c++) {
            FIELD_VCHAR[c] = c != 0x7f;
            // RFC 3986 has no place for bytes above 0x7f in a URI: a target carries them
            // percent-encoded. Raw, two parsers may decode them differently. A fragment ('#')
            // is never part of a request target (RFC 9112 §3.2).
            TARGET[c] = c < 0x7f && c != '#';
        }
        for (int c = 0; c < 256; c++) {
            FIELD_VALUE[c] = FIELD_VCHAR[c] || c == ' ' || c == '\t';
        }
        // Visible US-ASCII that RFC 3986 leaves out of a path (§3.3: pchar) and browsers never send
        // raw (they percent-encode '"', '<', '>', '`', '{', '}' and turn '\\' into '/'); '|', '[',
        // ']' and '^' stay allowed, since browsers and curl do send them raw.
        for (char c : "\\\"<>`{}".toCharArray()) {
            PATH_EXCLUDED[c] = true;
        }
        // RFC 3986 §2.3: unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~".
        for (int c = 0; c < 128; c++) {
            UNRESERVED[c] = Character.isLetterOrDigit(c) || c == '-' || c == '.' || c == '_' || c == '~';
        }
    }

    private ByteClass() {
    }

    /** tchar: a byte of a token (method, field name). */
    static boolean isTchar(int b) {
        return TCHAR[b];
    }

    /** A byte a field value or a reason phrase may hold: VCHAR, obs-text, SP, HTAB. */
    static boolean isFieldValueByte(int b) {
        return FIELD_VALUE[b];
    }

    /** A byte a request target may hold: visible US-ASCII but '#'. */
    static boolean isTargetChar(int b) {
        return TARGET[b];
    }

    /** A visible US-ASCII byte a request target may hold but its path may not (RFC 3986 §3.3). */
    static boolean isPathExcluded(int b) {
        return PATH_EXCLUDED[b];
    }

    /** RFC 3986 §2.3: a character that percent-encoding never changes the meaning of. */
    static boolean isUnreserved(int b) {
        return UNRESERVED[b];
    }

    static boolean isDigit(int b) {
        return b >= '0' && b <= '9';
    }

    /** The value of a hex digit, or -1. */
    static int hexValue(int b) {
        if (b >= '0' && b <= '9') {
            return b - '0';
        }
        if (b >= 'a' && b <= 'f') {
            return b - 'a' + 10;
        }
        if (b >= 'A' && b <= 'F') {
            return b - 'A' + 10;
        }
        return -1;
    }
}
