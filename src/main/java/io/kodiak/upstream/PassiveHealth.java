package io.kodiak.upstream;

import io.kodiak.config.UpstreamGroupConfig;

/**
 * nginx's max_fails/fail_timeout with Envoy's growing ejection: {@code maxFails} failures within
 * {@code failTimeout} eject the server for failTimeout, doubled on each ejection that follows a
 * failed trial, up to {@link #MAX_MULTIPLIER} times. When the ejection ends one request goes to the
 * server on trial: its success brings the server back, its failure ejects it again.
 *
 * <pre>
 *   HEALTHY --max-fails within fail-timeout--> EJECTED --time passes, a request claims it--> TRIAL
 *   TRIAL --success--> HEALTHY          TRIAL --failure--> EJECTED (twice as long, up to the cap)
 *   TRIAL --no verdict within fail-timeout (the client left, say)--> another request claims it
 *   any --active checks bring the server back UP--> HEALTHY
 * </pre>
 */
final class PassiveHealth {
    static final int MAX_MULTIPLIER = 8;

    enum State { HEALTHY, EJECTED, TRIAL }

    private final UpstreamGroupConfig.Passive settings;
    private volatile State state = State.HEALTHY;
    // Guarded by this.
    private long windowStartMillis;
    private int failsInWindow;
    private long ejectedUntilMillis;
    private long trialStartMillis;
    private int multiplier = 1;
    private long ejections;

    PassiveHealth(UpstreamGroupConfig.Passive settings) {
        this.settings = settings;
    }

    State state() {
        return state;
    }

    /** True when a request may go to the server now (without claiming a trial). */
    boolean admits(long nowMillis) {
        State s = state;
        if (s == State.HEALTHY) {
            return true;
        }
        synchronized (this) {
            return state == State.EJECTED ? nowMillis >= ejectedUntilMillis : trialAbandoned(nowMillis);
        }
    }

    /** A trial whose request gave no verdict in fail-timeout (it ended without one): another may be tried. */
    private boolean trialAbandoned(long nowMillis) {
        return state == State.TRIAL && nowMillis - trialStartMillis >= settings.failTimeout().toMillis();
    }

    /**
     * A request is going to the server. False when another request took its trial first (the
     * balancer then chooses again without it).
     */
    boolean claim(long nowMillis) {
        // The common case without the lock: most servers are healthy most of the time.
        return state == State.HEALTHY || claimTrial(nowMillis);
    }

    private synchronized boolean claimTrial(long nowMillis) {
        switch (state) {
            case HEALTHY:
                return true;
            case EJECTED:
                if (nowMillis >= ejectedUntilMillis) {
                    state = State.TRIAL;
                    trialStartMillis = nowMillis;
                    return true;
                }
                return false;
            default:
                if (trialAbandoned(nowMillis)) {
                    trialStartMillis = nowMillis;
                    return true;
                }
                return false;
        }
    }

    /**
     * The server answered an attempt begun at {@code startedMillis}; returns true when that ended
     * a trial (the server is back). Only an attempt made during the trial decides it: one sent
     * before the ejection says nothing about the server now.
     */
    boolean success(long startedMillis) {
        // Passive health off (a route's own host:port): nothing to track, and no lock per response.
        return settings.enabled() && recordSuccess(startedMillis);
    }

    private synchronized boolean recordSuccess(long startedMillis) {
        if (state == State.TRIAL && startedMillis >= trialStartMillis) {
            state = State.HEALTHY;
            failsInWindow = 0;
            return true;
        }
        if (state == State.HEALTHY && multiplier > 1 && failsInWindow == 0) {
            multiplier = 1;
        }
        return false;
    }

    /** A failure of an attempt begun at {@code startedMillis}; returns true when it ejected the server. */
    synchronized boolean failure(long nowMillis, long startedMillis) {
        if (!settings.enabled()) {
            return false;
        }
        long window = settings.failTimeout().toMillis();
        switch (state) {
            case TRIAL:
                if (startedMillis < trialStartMillis) {
                    // An attempt from before the trial (response-timeout can outlast fail-timeout).
                    return false;
                }
                multiplier = Math.min(MAX_MULTIPLIER, multiplier * 2);
                eject(nowMillis, window);
                return true;
            case HEALTHY:
                if (failsInWindow == 0 || nowMillis - windowStartMillis > window) {
                    windowStartMillis = nowMillis;
                    failsInWindow = 0;
                }
                if (++failsInWindow >= settings.maxFails()) {
                    eject(nowMillis, window);
                    return true;
                }
                return false;
            default:
                // Already ejected: failures of requests sent before the ejection change nothing.
                return false;
        }
    }

    private void eject(long nowMillis, long window) {
        state = State.EJECTED;
        failsInWindow = 0;
        ejectedUntilMillis = nowMillis + window * multiplier;
        ejections++;
    }

    /**
     * Active checks brought the server back UP: a stronger sign than the passive clock, so any
     * ejection ends now and its doubling is forgotten (Envoy does the same by default,
     * successful_active_health_check_uneject_host).
     */
    synchronized void reset() {
        state = State.HEALTHY;
        failsInWindow = 0;
        multiplier = 1;
    }

    synchronized long ejections() {
        return ejections;
    }

    /** How long the current ejection lasts in total (ms), for the log. */
    synchronized long ejectionMillis() {
        return settings.failTimeout().toMillis() * multiplier;
    }
}
