package io.kodiak.http;

import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.http.util.DataChunk;
import org.glassfish.grizzly.http.util.MimeHeaders;

import java.util.Locale;

/**
 * The HTTP/1.1 field rules Grizzly's parser leaves out, for both codecs. Grizzly takes everything
 * before the next colon as a field name, even across line ends, so "Content-Length : 5" or a line
 * without any colon becomes a name no rule recognises, which a proxy would forward for the next
 * hop to read differently (request smuggling), and a last line without a colon leaves the parser
 * waiting for one. And Grizzly sees "close" only as the whole first Connection value, not as one
 * option of a list such as "Upgrade, close".
 */
public final class FieldSyntax {
    /** The message of the exception thrown for a name that is not a token; the codecs map it to their answer. */
    public static final String INVALID_NAME = "header field name that is not a token";

    private static final boolean[] TCHAR = new boolean[128];

    static {
        for (char c = '0'; c <= '9'; c++) {
            TCHAR[c] = true;
        }
        for (char c = 'a'; c <= 'z'; c++) {
            TCHAR[c] = true;
            TCHAR[Character.toUpperCase(c)] = true;
        }
        for (char c : "!#$%&'*+-.^_`|~".toCharArray()) {
            TCHAR[c] = true;
        }
    }

    private FieldSyntax() {
    }

    /**
     * Checks a field name as it arrives, before Grizzly's parser takes it: from {@code offset} (where
     * the previous read stopped) to the colon, or to {@code limit} when the colon has not arrived.
     * Throws on an empty name or on the first byte a token may not contain (RFC 9110 §5.1, RFC 9112 §5.1).
     */
    public static void checkName(byte[] input, int start, int offset, int limit) {
        for (int i = offset; i < limit; i++) {
            int b = input[i] & 0xff;
            if (b == ':') {
                requireNonEmpty(i, start);
                return;
            }
            requireTokenChar(b);
        }
    }

    /** As {@link #checkName(byte[], int, int, int)}, for the parser's path over buffers without an array. */
    public static void checkName(Buffer input, int start, int offset, int limit) {
        for (int i = offset; i < limit; i++) {
            int b = input.get(i) & 0xff;
            if (b == ':') {
                requireNonEmpty(i, start);
                return;
            }
            requireTokenChar(b);
        }
    }

    private static void requireNonEmpty(int colon, int start) {
        if (colon == start) {
            throw new IllegalStateException(INVALID_NAME);
        }
    }

    private static void requireTokenChar(int b) {
        if (b >= TCHAR.length || !TCHAR[b]) {
            throw new IllegalStateException(INVALID_NAME);
        }
    }

    /** True when a Connection field lists the "close" option (RFC 9112 §9.6), wherever it stands in the list. */
    public static boolean hasCloseOption(MimeHeaders headers) {
        for (int i = 0; i < headers.size(); i++) {
            DataChunk name = headers.getName(i);
            if (name.getLength() == 10 && name.equalsIgnoreCase("connection") && listsClose(headers.getValue(i))) {
                return true;
            }
        }
        return false;
    }

    private static boolean listsClose(DataChunk value) {
        // The two values almost every message carries cost no allocation.
        if (value.equalsIgnoreCase("close")) {
            return true;
        }
        if (value.equalsIgnoreCase("keep-alive")) {
            return false;
        }
        for (String option : value.toString().split(",")) {
            if (option.trim().toLowerCase(Locale.ROOT).equals("close")) {
                return true;
            }
        }
        return false;
    }
}
