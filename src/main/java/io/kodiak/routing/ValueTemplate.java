package io.kodiak.routing;

import io.kodiak.http.HeadWriter;

import java.util.ArrayList;
import java.util.List;

/**
 * A header value as configured: literal text with {@code ${variable}}s. The literal parts are
 * checked once, at load: visible ASCII, spaces and tabs inside, no control bytes (a CR or LF would
 * let a value start a field of its own), so writing it copies bytes.
 */
final class ValueTemplate {
    private final String source;
    /** Each part a String (literal) or a HeaderVariable. */
    private final Object[] parts;

    private ValueTemplate(String source, Object[] parts) {
        this.source = source;
        this.parts = parts;
    }

    static ValueTemplate parse(String text) throws HeaderRules.Invalid {
        List<Object> parts = new ArrayList<>();
        StringBuilder literal = new StringBuilder();
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '$' && i + 1 < text.length() && text.charAt(i + 1) == '{') {
                int close = text.indexOf('}', i + 2);
                HeaderVariable variable = close < 0 ? null : HeaderVariable.named(text.substring(i + 2, close));
                if (variable == null) {
                    String name = close < 0 ? text.substring(i) : text.substring(i, close + 1);
                    throw new HeaderRules.Invalid("a value whose variables are among " + HeaderVariable.names()
                            + " (unknown: " + name + ")");
                }
                if (!literal.isEmpty()) {
                    parts.add(literal.toString());
                    literal.setLength(0);
                }
                parts.add(variable);
                i = close + 1;
                continue;
            }
            if (c != '\t' && (c < 0x20 || c > 0x7e)) {
                throw new HeaderRules.Invalid("a value of visible ASCII characters, spaces and tabs (no control characters)");
            }
            literal.append(c);
            i++;
        }
        if (!literal.isEmpty()) {
            parts.add(literal.toString());
        }
        if (!text.equals(text.strip())) {
            throw new HeaderRules.Invalid("a value without whitespace around it");
        }
        return new ValueTemplate(text, parts.toArray());
    }

    boolean hasVariables() {
        for (Object part : parts) {
            if (part instanceof HeaderVariable) {
                return true;
            }
        }
        return false;
    }

    boolean uses(HeaderVariable variable) {
        for (Object part : parts) {
            if (part == variable) {
                return true;
            }
        }
        return false;
    }

    void writeTo(HeadWriter out, HeaderVariable.Values values) {
        for (Object part : parts) {
            if (part instanceof String literal) {
                out.ascii(literal);
            } else {
                String value = values.of((HeaderVariable) part);
                if (value != null) {
                    out.ascii(value);
                }
            }
        }
    }

    @Override
    public String toString() {
        return source;
    }
}
