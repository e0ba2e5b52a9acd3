package io.kodiak.http;

import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.http.HttpCodecFilter;
import org.glassfish.grizzly.http.util.DataChunk;
import org.glassfish.grizzly.http.util.MimeHeaders;

import java.nio.charset.StandardCharsets;
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
    private static final byte[] CONNECTION = ascii("connection");
    private static final byte[] KEEP_ALIVE = ascii("keep-alive");
    private static final byte[] CLOSE = ascii("close");
    /** Shared, never modified: returned for the two common Connection values. */
    private static final String[] KEEP_ALIVE_OPTIONS = {"keep-alive"};
    private static final String[] CLOSE_OPTIONS = {"close"};

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
     * Checks a field name as it arrives, before Grizzly's parser takes it: from where the previous
     * read stopped to the colon, or to the end of what has arrived when the colon has not. Throws on
     * an empty name or on the first byte a token may not contain (RFC 9110 §5.1, RFC 9112 §5.1).
     * Called from both codecs' {@code parseHeaderName}, with the arguments Grizzly passes there.
     */
    public static void checkName(HttpCodecFilter.HeaderParsingState state, byte[] input, int end) {
        int start = state.arrayOffset + state.start;
        int limit = Math.min(end, state.arrayOffset + state.packetLimit);
        for (int i = state.arrayOffset + state.offset; i < limit; i++) {
            int b = input[i] & 0xff;
            if (b == ':') {
                requireNonEmpty(i, start);
                return;
            }
            requireTokenChar(b);
        }
    }

    /** As {@link #checkName(HttpCodecFilter.HeaderParsingState, byte[], int)}, for buffers without an array. */
    public static void checkName(HttpCodecFilter.HeaderParsingState state, Buffer input) {
        int limit = Math.min(input.limit(), state.packetLimit);
        for (int i = state.offset; i < limit; i++) {
            int b = input.get(i) & 0xff;
            if (b == ':') {
                requireNonEmpty(i, state.start);
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
        String[] options = connectionOptions(headers);
        if (options != null) {
            for (String option : options) {
                if (option.equals("close")) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * The options of all Connection fields, lower case: "close", or header names that are hop-by-hop
     * for this message only. Null when there is no Connection field.
     */
    public static String[] connectionOptions(MimeHeaders headers) {
        String[] options = null;
        for (int i = 0; i < headers.size(); i++) {
            DataChunk name = headers.getName(i);
            if (name.getLength() != CONNECTION.length || !name.equalsIgnoreCase(CONNECTION)) {
                continue;
            }
            String[] here = optionsOf(headers.getValue(i));
            if (options == null) {
                options = here;
            } else {
                String[] merged = new String[options.length + here.length];
                System.arraycopy(options, 0, merged, 0, options.length);
                System.arraycopy(here, 0, merged, options.length, here.length);
                options = merged;
            }
        }
        return options;
    }

    /** One Connection value as lower-case options; the values almost every message carries cost no allocation. */
    private static String[] optionsOf(DataChunk value) {
        if (value.equalsIgnoreCase(KEEP_ALIVE)) {
            return KEEP_ALIVE_OPTIONS;
        }
        if (value.equalsIgnoreCase(CLOSE)) {
            return CLOSE_OPTIONS;
        }
        String[] options = value.toString().toLowerCase(Locale.ROOT).split(",");
        for (int j = 0; j < options.length; j++) {
            options[j] = options[j].trim();
        }
        return options;
    }

    private static byte[] ascii(String lowerCase) {
        return lowerCase.getBytes(StandardCharsets.US_ASCII);
    }
}
