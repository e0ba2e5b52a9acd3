package io.kodiak.stub;

import java.util.Locale;

/** How the stub waits out its delay. */
public enum DelayMode {
    /** The request is suspended and a scheduler resumes it: a waiting request holds no thread. */
    ASYNC,
    /** A container thread sleeps through the delay, as the 2015 servlet did. */
    BLOCKING;

    /** The spelling used in STUB_MODE and in messages. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    static DelayMode fromLabel(String value) {
        for (DelayMode mode : values()) {
            if (mode.label().equals(value)) {
                return mode;
            }
        }
        return null;
    }
}
