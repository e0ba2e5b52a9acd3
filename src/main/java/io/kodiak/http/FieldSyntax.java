package io.kodiak.http;

import org.glassfish.grizzly.http.util.DataChunk;
import org.glassfish.grizzly.http.util.MimeHeaders;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The Connection field's options, for both codecs: Grizzly sees "close" only as the whole first
 * Connection value, not as one option of a list such as "Upgrade, close". (The syntax of names
 * and values is {@link HeadScanner}'s.)
 */
public final class FieldSyntax {
    private static final byte[] CONNECTION = ascii("connection");
    private static final byte[] KEEP_ALIVE = ascii("keep-alive");
    private static final byte[] CLOSE = ascii("close");
    /** Shared, never modified: returned for the two common Connection values. */
    private static final String[] KEEP_ALIVE_OPTIONS = {"keep-alive"};
    private static final String[] CLOSE_OPTIONS = {"close"};

    private FieldSyntax() {
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
