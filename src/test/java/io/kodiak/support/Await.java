package io.kodiak.support;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Polls a condition with a deadline: for state another thread or process changes, where no event can be awaited. */
public final class Await {
    private static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(30);

    private Await() {
    }

    public static void await(BooleanSupplier condition, String what) throws InterruptedException {
        await(condition, () -> what);
    }

    /** As above, {@code what} told as it is at the deadline (the state that did not change, say). */
    public static void await(BooleanSupplier condition, java.util.function.Supplier<String> what) throws InterruptedException {
        long deadline = System.nanoTime() + DEADLINE_NANOS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what.get());
            }
            Thread.sleep(10);
        }
    }
}
