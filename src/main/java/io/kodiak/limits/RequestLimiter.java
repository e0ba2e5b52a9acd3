package io.kodiak.limits;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A token bucket per key, kept as the Generic Cell Rate Algorithm keeps it: one number per key,
 * the theoretical arrival time of the next request (TAT). A request at {@code now} conforms when
 * {@code max(TAT, now) + interval - now <= (burst + 1) * interval}, and then moves TAT on by one
 * interval; otherwise it waits the difference. Exactly a bucket of burst + 1 tokens refilled at
 * the rate, without a refill computation or a second number.
 *
 * <p>Keys are held in a fixed number of segments, each an LRU map under its own lock, so memory
 * stays bounded by {@code maxKeys} however many keys appear; a forgotten key starts afresh with
 * a full bucket (the bound is the price: set max-keys above the clients you expect to limit).
 */
public final class RequestLimiter {
    private static final int SEGMENTS = 16;

    private final LimitSettings settings;
    private final long intervalNanos;
    private final long toleranceNanos;
    private final Segment[] segments = new Segment[SEGMENTS];

    public RequestLimiter(LimitSettings settings) {
        this.settings = settings;
        this.intervalNanos = Math.max(1, Math.round(1e9 / settings.requestsPerSecond()));
        this.toleranceNanos = intervalNanos * (settings.burst() + 1L);
        int perSegment = Math.max(1, (settings.maxKeys() + SEGMENTS - 1) / SEGMENTS);
        for (int i = 0; i < SEGMENTS; i++) {
            segments[i] = new Segment(perSegment);
        }
    }

    public LimitSettings settings() {
        return settings;
    }

    /**
     * Takes one request for {@code key} at {@code nowNanos} (System.nanoTime): 0 when it
     * conforms, else how long until it would have (nothing is taken then).
     */
    public long take(String key, long nowNanos) {
        Segment segment = segments[(key.hashCode() & 0x7fffffff) % SEGMENTS];
        synchronized (segment) {
            long[] tat = segment.get(key);
            long start = tat == null ? nowNanos : Math.max(tat[0], nowNanos);
            long next = start + intervalNanos;
            long wait = next - nowNanos - toleranceNanos;
            if (wait > 0) {
                return wait;
            }
            if (tat == null) {
                segment.put(key, new long[] {next});
            } else {
                tat[0] = next;
            }
            return 0;
        }
    }

    /** Keys tracked now, for tests and the admin view. */
    public int keys() {
        int n = 0;
        for (Segment segment : segments) {
            synchronized (segment) {
                n += segment.size();
            }
        }
        return n;
    }

    private static final class Segment extends LinkedHashMap<String, long[]> {
        private final int capacity;

        Segment(int capacity) {
            super(Math.min(capacity, 1024), 0.75f, true);
            this.capacity = capacity;
        }

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, long[]> eldest) {
            return size() > capacity;
        }
    }
}
