package io.kodiak.stub;

import java.time.Duration;
import java.util.function.IntPredicate;

/** Counts exchanges between arrival and completion, so shutdown can drain them and tests can observe them. */
public final class InFlight {
    private int count;

    synchronized void enter() {
        count++;
        notifyAll();
    }

    synchronized void leave() {
        count--;
        notifyAll();
    }

    public synchronized int count() {
        return count;
    }

    /** Waits until the count satisfies {@code condition}; false when {@code timeout} passed first. */
    public synchronized boolean await(IntPredicate condition, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.test(count)) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            wait(Math.max(1, left / 1_000_000));
        }
        return true;
    }
}
