package io.kodiak.admin;

import io.kodiak.config.AdminToken;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Who may change state through the admin listener: a client on this host (a loopback peer), or
 * one presenting the token of proxy.admin.token-file as {@code Authorization: Bearer TOKEN}. The
 * read-only endpoints do not ask. Naming a file for the daemon to read takes the token even from
 * loopback. Refusals are logged with the peer's address and never what it presented, at most a
 * few lines in ten seconds.
 */
final class ReloadGuard {
    private static final Logger LOG = LoggerFactory.getLogger(ReloadGuard.class);
    private static final String BEARER = "Bearer ";

    private final Supplier<AdminToken> token;
    private static final int LINES_PER_WINDOW = 10;
    private static final long WINDOW_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
    /** The refusal log's window: when it began (System.nanoTime; 0: none yet), lines in it, refusals left out. */
    private long windowStart;
    private int linesInWindow;
    private long unlogged;
    private final Predicate<InetAddress> local;

    /** {@code token}: the one in service now (a reload may set, change or remove it). */
    ReloadGuard(Supplier<AdminToken> token) {
        this(token, InetAddress::isLoopbackAddress);
    }

    /** {@code local}: which peers count as this host; tests stand in for a remote one. */
    ReloadGuard(Supplier<AdminToken> token, Predicate<InetAddress> local) {
        this.token = token;
        this.local = local;
    }

    /** Null when {@code peer} may do {@code what}; else why not, which has been logged. */
    String refusal(String what, InetAddress peer, String authorization) {
        if (local.test(peer)) {
            return null;
        }
        String reason = tokenRefusal(authorization);
        if (reason == null) {
            return null;
        }
        reason = "not from a loopback address, and " + reason;
        logRefusal(what, peer, reason);
        return reason;
    }

    /**
     * Null when {@code authorization} carries the token, whoever the peer is; else why not, which
     * has been logged. For what loopback alone must not allow: naming a file for the daemon to
     * read (any process on the host, a sidecar, a request forged through another local service).
     */
    String refusalWithoutToken(String what, InetAddress peer, String authorization) {
        String reason = tokenRefusal(authorization);
        if (reason != null) {
            logRefusal(what, peer, reason);
        }
        return reason;
    }

    private String tokenRefusal(String authorization) {
        AdminToken expected = token.get();
        if (expected == null) {
            return "no proxy.admin.token-file is set";
        }
        if (authorization == null || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return "no bearer token";
        }
        if (!expected.matches(authorization.substring(BEARER.length()).strip().getBytes(StandardCharsets.UTF_8))) {
            return "the bearer token is not the one of proxy.admin.token-file";
        }
        return null;
    }

    /**
     * One WARN line per refusal, at most {@link #LINES_PER_WINDOW} in ten seconds: refusals cost a
     * caller nothing, and the log must not be theirs to fill. Those left out are counted in the
     * first line of the next window. Admin threads only, never the forwarding path.
     */
    private synchronized void logRefusal(String what, InetAddress peer, String reason) {
        long now = System.nanoTime();
        if (windowStart == 0 || now - windowStart >= WINDOW_NANOS) {
            windowStart = now;
            linesInWindow = 0;
        }
        if (linesInWindow >= LINES_PER_WINDOW) {
            unlogged++;
            return;
        }
        linesInWindow++;
        long left = unlogged;
        unlogged = 0;
        LOG.warn("admin: {} refused from {}: {}{}", what, peer.getHostAddress(), reason,
                left == 0 ? "" : " (" + left + " more refusals before this one were not logged one by one)");
    }
}
