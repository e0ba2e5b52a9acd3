package io.kodiak.support;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A millisecond clock that moves only when the test says so, for rules written in time (fail-timeout,
 * a retry budget's window): "within fail-timeout" and "once fail-timeout passed" become steps of the
 * test instead of races with the machine's speed. Starts at the wall clock's now.
 */
public final class ManualClock implements LongSupplier {
    private final AtomicLong millis = new AtomicLong(System.currentTimeMillis());

    @Override
    public long getAsLong() {
        return millis.get();
    }

    public void advance(Duration by) {
        millis.addAndGet(by.toMillis());
    }
}
