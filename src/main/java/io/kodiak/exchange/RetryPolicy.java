package io.kodiak.exchange;

import io.kodiak.config.UpstreamGroupConfig.RetryOn;
import io.kodiak.upstream.UpstreamGroup;
import io.kodiak.upstream.UpstreamServer;

/**
 * An exchange's tries: which servers of its group were tried, how many attempts went out, and the
 * one decision whether a failed attempt is tried again ({@link #allows}). One per exchange, on its
 * loop.
 */
final class RetryPolicy {
    private final UpstreamGroup group;
    /** The hash balancer's key for this request, or null. */
    private final String hashKey;
    /** Servers tried, one bit per server of the group. */
    private long tried;
    private int attempts;
    /** host:port of every server tried, in order, for the access log. */
    private String serversTried;
    /** The stale-connection retry (same server, a new connection) was used. */
    private boolean staleRetried;

    RetryPolicy(UpstreamGroup group, String hashKey) {
        this.group = group;
        this.hashKey = hashKey;
    }

    /** The next server to try (one not tried yet, as the balancer picks), counted as tried; null when none is left. */
    UpstreamServer next() {
        UpstreamServer next = group.pick(tried, hashKey);
        if (next != null) {
            counted(next);
        }
        return next;
    }

    private void counted(UpstreamServer server) {
        tried |= UpstreamGroup.bit(server);
        attempts++;
        serversTried = serversTried == null ? server.authority() : serversTried + "," + server.authority();
    }

    /**
     * Whether the request goes to another server after {@code failure}. Never once anything of an
     * answer reached the client ({@code answerBegun}); after the request went out ({@code sent}),
     * only when it may be sent once more ({@code resendable}). Then the group's retry rules decide:
     * its conditions, attempts and budget.
     */
    boolean allows(AttemptFailure failure, boolean sent, boolean resendable, boolean answerBegun) {
        RetryOn condition = failure.retryOn();
        if (condition == null || answerBegun || sent && !resendable) {
            return false;
        }
        return group.mayRetry(condition, attempts, tried);
    }

    /**
     * An idle pooled connection the upstream closed as it was reused: once per exchange, the
     * same request goes to the same server on a brand-new connection (an idle close is no sign of
     * ill health, and nothing was answered).
     */
    boolean allowsStaleRetry(boolean reused, boolean resendable) {
        if (staleRetried || !reused || !resendable) {
            return false;
        }
        staleRetried = true;
        return true;
    }

    /** host:port of every server tried, in order; null before the first. */
    String serversTried() {
        return serversTried;
    }
}
