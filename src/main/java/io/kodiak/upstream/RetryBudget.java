package io.kodiak.upstream;

/**
 * Bounds a group's retries to a share of its recent requests (Envoy's retry budget, counted over
 * a sliding window instead of concurrency): a retry is allowed while the retries of the last
 * {@link #WINDOW_SECONDS} seconds stay within {@code share} of the requests in that time, plus
 * {@link #MIN_RETRIES} so that a quiet group can still retry. When every server fails, retries
 * therefore add at most that share to the load instead of multiplying it by the attempts.
 */
final class RetryBudget {
    static final int WINDOW_SECONDS = 10;
    static final int MIN_RETRIES = 3;

    private final double share;
    // Guarded by this: one slot per second of the window, reused as the clock moves on.
    private final long[] slotSecond = new long[WINDOW_SECONDS];
    private final long[] requests = new long[WINDOW_SECONDS];
    private final long[] retries = new long[WINDOW_SECONDS];

    RetryBudget(double share) {
        this.share = share;
    }

    synchronized void request(long nowMillis) {
        requests[slot(nowMillis)]++;
    }

    /** Takes one retry from the budget; false when the budget is spent. */
    synchronized boolean tryRetry(long nowMillis) {
        int current = slot(nowMillis);
        long second = nowMillis / 1000;
        long recentRequests = 0;
        long recentRetries = 0;
        for (int i = 0; i < WINDOW_SECONDS; i++) {
            if (second - slotSecond[i] < WINDOW_SECONDS) {
                recentRequests += requests[i];
                recentRetries += retries[i];
            }
        }
        if (recentRetries + 1 > share * recentRequests + MIN_RETRIES) {
            return false;
        }
        retries[current]++;
        return true;
    }

    private int slot(long nowMillis) {
        long second = nowMillis / 1000;
        int i = (int) (second % WINDOW_SECONDS);
        if (slotSecond[i] != second) {
            slotSecond[i] = second;
            requests[i] = 0;
            retries[i] = 0;
        }
        return i;
    }
}
