package io.kodiak.admin;

import io.micrometer.core.instrument.Timer;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Latency samples on their way into Micrometer timers. A timer that publishes percentiles records
 * into shared HdrHistogram recorders: about 0.1 µs from one thread, but about 1.2 µs when two
 * selector threads record into it at once (their atomics bounce between cores), and an exchange
 * records two (measured by bench/core/TimerContention.java). So each recording thread appends to a
 * ring of its own, and one drainer at a time feeds the timers. {@link #drain()} runs on a short tick
 * and before every scrape, so /metrics always includes every exchange that finished before it. A full
 * ring records directly instead: slower, but no sample is ever dropped.
 */
final class TimerFeed {
    /** Samples a thread may hold between drains; at 30,000 exchanges/s, two samples each, a tick of 50 ms fills 3,000. */
    static final int CAPACITY = 8192;

    private final ThreadLocal<Ring> ringOfThread = ThreadLocal.withInitial(this::newRing);
    private final List<Ring> rings = new CopyOnWriteArrayList<>();
    private final ReentrantLock draining = new ReentrantLock();

    void record(Timer timer, long nanos) {
        ringOfThread.get().offer(timer, nanos);
    }

    /** Feeds every sample recorded so far into its timer. Safe from any thread. */
    void drain() {
        draining.lock();
        try {
            for (Ring ring : rings) {
                ring.drain();
            }
        } finally {
            draining.unlock();
        }
    }

    private Ring newRing() {
        Ring ring = new Ring();
        rings.add(ring);
        return ring;
    }

    /**
     * One producer (its thread) and one consumer (whoever holds the drain lock). The producer
     * publishes a slot by advancing {@code tail} after writing it; the consumer frees slots by
     * advancing {@code head} after reading them.
     */
    private static final class Ring {
        private static final int MASK = CAPACITY - 1;
        private final Timer[] timers = new Timer[CAPACITY];
        private final long[] nanos = new long[CAPACITY];
        private final AtomicLong head = new AtomicLong();
        private final AtomicLong tail = new AtomicLong();

        void offer(Timer timer, long value) {
            long t = tail.get();
            if (t - head.get() == CAPACITY) {
                timer.record(value, TimeUnit.NANOSECONDS);
                return;
            }
            int slot = (int) t & MASK;
            timers[slot] = timer;
            nanos[slot] = value;
            tail.lazySet(t + 1);
        }

        void drain() {
            long h = head.get();
            long t = tail.get();
            for (; h < t; h++) {
                int slot = (int) h & MASK;
                timers[slot].record(nanos[slot], TimeUnit.NANOSECONDS);
                timers[slot] = null;
            }
            head.lazySet(h);
        }
    }
}
