package io.kodiak.limits;

import io.kodiak.http.FieldName;

import java.util.Locale;

/**
 * What a request limit counts by: the client's address, or the value of a request header (an API
 * key, a tenant). A request without the header counts by its address, so leaving the header out
 * does not escape the limit.
 */
public record LimitKey(String headerName) {
    public static final LimitKey CLIENT_ADDRESS = new LimitKey(null);
    public static final String EXPECTED = "\"client-address\" or \"header:NAME\"";

    /** Raised for a key that is neither form. */
    public static final class Invalid extends Exception {
        public Invalid() {
            super(EXPECTED, null, false, false);
        }
    }

    public static LimitKey parse(String text) throws Invalid {
        if (text.equals("client-address")) {
            return CLIENT_ADDRESS;
        }
        if (text.regionMatches(true, 0, "header:", 0, 7) && FieldName.isToken(text.substring(7))) {
            return new LimitKey(text.substring(7).toLowerCase(Locale.ROOT));
        }
        throw new Invalid();
    }

    public boolean byHeader() {
        return headerName != null;
    }

    @Override
    public String toString() {
        return headerName == null ? "client-address" : "header:" + headerName;
    }
}
