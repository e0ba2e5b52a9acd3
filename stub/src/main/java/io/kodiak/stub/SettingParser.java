package io.kodiak.stub;

/**
 * Parses one named setting and, when it is wrong, says which variable, which value and what was expected,
 * so a typo in an environment variable is fixed from the first message.
 */
public final class SettingParser {
    private SettingParser() {
    }

    /** An integer in [min, max]; {@code raw == null} or blank means {@code fallback}. */
    public static int integer(String name, String raw, int fallback, int min, int max) {
        if (raw == null || raw.isBlank()) {
            return fallback;
        }
        String value = raw.trim();
        String expected = max == Integer.MAX_VALUE
                ? "an integer from " + min + " upwards"
                : "an integer from " + min + " to " + max;
        if (!value.matches("[0-9]{1,10}")) {
            throw invalid(name, raw, expected);
        }
        long parsed = Long.parseLong(value);
        if (parsed < min || parsed > max) {
            throw invalid(name, raw, expected);
        }
        return (int) parsed;
    }

    /** A {@link DelayMode} label; {@code raw == null} or blank means {@code fallback}. */
    public static DelayMode mode(String name, String raw, DelayMode fallback) {
        if (raw == null || raw.isBlank()) {
            return fallback;
        }
        DelayMode mode = DelayMode.fromLabel(raw.trim());
        if (mode == null) {
            throw invalid(name, raw, "one of async, blocking");
        }
        return mode;
    }

    public static IllegalArgumentException invalid(String name, String raw, String expected) {
        return new IllegalArgumentException(name + "='" + raw + "' is not valid: expected " + expected);
    }
}
