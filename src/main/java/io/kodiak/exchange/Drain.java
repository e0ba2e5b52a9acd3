package io.kodiak.exchange;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts exchanges in flight and runs a callback once the proxy is draining and the count
 * reaches zero, so a stop waits for exactly the work that was already accepted.
 */
public final class Drain {
    private final AtomicInteger inFlight = new AtomicInteger();
    private volatile boolean draining;
    private volatile Runnable onIdle;
    /** The grace period ran out: connections still open are closed by the proxy. */
    private volatile boolean expired;

    void exchangeStarted() {
        inFlight.incrementAndGet();
    }

    void exchangeEnded() {
        if (inFlight.decrementAndGet() == 0 && draining) {
            fireIdle();
        }
    }

    public int inFlight() {
        return inFlight.get();
    }

    public boolean isDraining() {
        return draining;
    }

    /** From now on new requests are refused and responses close their connections. */
    public void begin() {
        draining = true;
    }

    /** The grace period is over: exchanges still in flight are cut when their connections close. */
    public void expire() {
        expired = true;
    }

    /** True once the grace period ran out (an exchange ended now was cut by the stop). */
    public boolean isExpired() {
        return expired;
    }

    /** Draining (see {@link #begin}); {@code whenIdle} runs once nothing is in flight. */
    public void start(Runnable whenIdle) {
        onIdle = whenIdle;
        draining = true;
        if (inFlight.get() == 0) {
            fireIdle();
        }
    }

    private void fireIdle() {
        Runnable r = onIdle;
        if (r != null) {
            onIdle = null;
            r.run();
        }
    }
}
