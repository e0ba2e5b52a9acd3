package io.kodiak.stub;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

/** Turns a request body into text without ever failing: the stub answers bad input, it does not reject it. */
public final class RequestText {
    private RequestText() {
    }

    /** The declared charset when Java knows it, UTF-8 otherwise (no declaration, unknown or malformed name). */
    public static Charset charsetOf(String declared) {
        if (declared == null || declared.isBlank()) {
            return StandardCharsets.UTF_8;
        }
        try {
            return Charset.forName(declared.trim());
        } catch (IllegalArgumentException unknownOrIllegalName) {
            return StandardCharsets.UTF_8;
        }
    }

    /** Bytes that are not valid in the charset become U+FFFD (String's decoding always replaces, never throws). */
    public static String decode(byte[] body, int length, String declaredCharset) {
        return new String(body, 0, length, charsetOf(declaredCharset));
    }
}
