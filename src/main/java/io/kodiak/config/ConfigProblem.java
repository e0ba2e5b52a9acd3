package io.kodiak.config;

import com.typesafe.config.ConfigRenderOptions;

/** One invalid setting: which key, what it held, and what was expected instead. */
public record ConfigProblem(String key, String value, String expected) {
    /** How a value is shown in a problem: on one line, without the parser's origin comments. */
    static final ConfigRenderOptions SHOWN = ConfigRenderOptions.concise();

    @Override
    public String toString() {
        return key + " = " + value + ": expected " + expected;
    }
}
