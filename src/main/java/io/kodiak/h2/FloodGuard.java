package io.kodiak.h2;

/**
 * Counts, per connection and per second, what costs the server work and gives the client nothing
 * it could not get otherwise: streams reset by the client or refused (rapid reset,
 * CVE-2023-44487) and frames that carry no request progress (SETTINGS, PING, PRIORITY, empty
 * DATA: the CVE-2019-9512..9518 family). Past either limit the connection is told
 * ENHANCE_YOUR_CALM and closed. The replies such frames call for are bounded elsewhere: the
 * connection stops reading while its write queue is full.
 */
public final class FloodGuard {
    private static final long SECOND = 1_000_000_000L;
    private final int maxResets;
    private final int maxIdleFrames;
    private long windowStart = System.nanoTime();
    private int resets;
    private int idleFrames;

    public FloodGuard(int maxResetsPerSecond, int maxIdleFramesPerSecond) {
        this.maxResets = maxResetsPerSecond;
        this.maxIdleFrames = maxIdleFramesPerSecond;
    }

    /** A stream the client reset, or one refused; true when that is one too many. */
    public boolean reset() {
        roll();
        return ++resets > maxResets;
    }

    /** A frame that made no progress; true when that is one too many. */
    public boolean idleFrame() {
        roll();
        return ++idleFrames > maxIdleFrames;
    }

    private void roll() {
        long now = System.nanoTime();
        if (now - windowStart >= SECOND) {
            windowStart = now;
            resets = 0;
            idleFrames = 0;
        }
    }
}
