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
 * read-only endpoints do not ask. Every refusal is logged once, with the peer's address and
 * never what it presented.
 */
final class ReloadGuard {
    private static final Logger LOG = LoggerFactory.getLogger(ReloadGuard.class);
    private static final String BEARER = "Bearer ";

    private final Supplier<AdminToken> token;
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
        AdminToken expected = token.get();
        String reason;
        if (expected == null) {
            reason = "not from a loopback address, and no proxy.admin.token-file is set";
        } else if (authorization == null || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            reason = "not from a loopback address, and no bearer token";
        } else if (!expected.matches(authorization.substring(BEARER.length()).strip().getBytes(StandardCharsets.US_ASCII))) {
            reason = "not from a loopback address, and the bearer token is not the one of proxy.admin.token-file";
        } else {
            return null;
        }
        LOG.warn("admin: {} refused from {}: {}", what, peer.getHostAddress(), reason);
        return reason;
    }
}
