package io.kodiak.stub;

import java.util.function.UnaryOperator;

/** What the servlet itself needs to know: how long to wait and how. */
public record StubSettings(int delayMs, DelayMode mode) {
    public static final String DELAY_VARIABLE = "STUB_DELAY_MS";
    public static final String MODE_VARIABLE = "STUB_MODE";
    public static final int DEFAULT_DELAY_MS = 500;
    public static final DelayMode DEFAULT_MODE = DelayMode.ASYNC;

    public StubSettings {
        if (delayMs < 0) {
            throw SettingParser.invalid(DELAY_VARIABLE, Integer.toString(delayMs), "a non-negative integer");
        }
        if (mode == null) {
            throw new IllegalArgumentException(MODE_VARIABLE + " must not be null");
        }
    }

    /** Reads STUB_DELAY_MS and STUB_MODE through {@code lookup} (environment, init parameters…). */
    public static StubSettings from(UnaryOperator<String> lookup) {
        int delay = SettingParser.integer(DELAY_VARIABLE, lookup.apply(DELAY_VARIABLE), DEFAULT_DELAY_MS, 0,
                Integer.MAX_VALUE);
        DelayMode mode = SettingParser.mode(MODE_VARIABLE, lookup.apply(MODE_VARIABLE), DEFAULT_MODE);
        return new StubSettings(delay, mode);
    }
}
