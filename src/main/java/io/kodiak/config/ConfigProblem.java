package io.kodiak.config;

/** One invalid setting: which key, what it held, and what was expected instead. */
public record ConfigProblem(String key, String value, String expected) {
    @Override
    public String toString() {
        return key + " = " + value + ": expected " + expected;
    }
}
