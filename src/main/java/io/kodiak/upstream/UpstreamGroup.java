package io.kodiak.upstream;

import io.kodiak.config.UpstreamGroupConfig;

import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The servers behind a route, and how a request picks one: the balancer among the available
 * primary servers, then among the available backups, and when no server at all is available,
 * among every server (Envoy's panic mode: answering through a server that may be down beats
 * answering nothing). A retry never goes to a server the request already tried.
 */
public final class UpstreamGroup {
    private final UpstreamGroupConfig settings;
    private final UpstreamServer[] servers;
    private final Balancer balancer;
    private final RetryBudget budget;
    private final LongAdder retries = new LongAdder();
    /** The balancer's input, reused under the lock. */
    private final UpstreamServer[] scratch;
    /** Why the group has no server (its DNS names have not resolved), else null. */
    private final String unavailable;
    /** What the retry budget reads the time from (ms): the wall clock, or a test's own (see {@link #useClock}). */
    private volatile LongSupplier clock = System::currentTimeMillis;

    UpstreamGroup(UpstreamGroupConfig settings, List<UpstreamServer> servers) {
        this(settings, servers, null);
    }

    UpstreamGroup(UpstreamGroupConfig settings, List<UpstreamServer> servers, String unavailable) {
        this.settings = settings;
        this.unavailable = unavailable;
        this.servers = servers.toArray(UpstreamServer[]::new);
        this.scratch = new UpstreamServer[this.servers.length];
        this.balancer = switch (settings.balance()) {
            case ROUND_ROBIN -> new SmoothWeightedRoundRobin();
            case LEAST_CONNECTIONS -> new LeastConnections();
            case RANDOM_TWO -> new PowerOfTwoChoices();
            case HASH -> new ConsistentHash(this.servers);
        };
        this.budget = new RetryBudget(settings.retry().budget());
    }

    public String name() {
        return settings.name();
    }

    /**
     * Tests: the group's time-bound rules (its servers' fail-timeout and ejections, the retry budget's window) run
     * on {@code millis} instead of the wall clock, so that a test says when time has passed instead of racing it.
     * A reload's new group starts on the wall clock again (its servers keep theirs).
     */
    public void useClock(LongSupplier millis) {
        clock = millis;
        for (UpstreamServer server : servers) {
            server.useClock(millis);
        }
    }

    /** The group's settings with the servers it has now (a name's addresses in place of the name). */
    public UpstreamGroupConfig settings() {
        return settings;
    }

    /** Why the group has no server to send to (its names have not resolved yet), or null when it has servers. */
    public String unavailable() {
        return servers.length == 0 ? (unavailable != null ? unavailable : "no server") : null;
    }

    public List<UpstreamServer> servers() {
        return List.of(servers);
    }

    /** The server at {@code authority} (host:port), or null. */
    UpstreamServer server(String authority) {
        for (UpstreamServer server : servers) {
            if (server.authority().equals(authority)) {
                return server;
            }
        }
        return null;
    }

    /** The hash balancer's key source, or null when the group does not hash. */
    public UpstreamGroupConfig.HashKey hashKey() {
        return settings.balance() == UpstreamGroupConfig.Balance.HASH ? settings.hashKey() : null;
    }

    /**
     * The server for the next attempt of a request, or null when every available server was
     * tried. {@code tried}: bit i set for the group's i-th server.
     */
    public UpstreamServer pick(long tried, String key) {
        if (servers.length == 1) {
            // One server: nothing to balance, and the server is used whatever its health; an
            // ejection that has run out still turns into a trial, so that a success ends it.
            if ((tried & 1) != 0) {
                return null;
            }
            servers[0].claim();
            return servers[0];
        }
        synchronized (this) {
            long skip = tried;
            while (true) {
                int n = collect(skip, false);
                if (n == 0) {
                    n = collect(skip, true);
                }
                if (n == 0) {
                    break;
                }
                UpstreamServer chosen = balancer.choose(scratch, n, key);
                if (chosen.claim()) {
                    return chosen;
                }
                // Its trial went to another request a moment ago: choose among the others.
                skip |= bit(chosen);
            }
            if (triedAvailable(tried)) {
                // A retry, and the servers that are up were tried already.
                return null;
            }
            // No server left that is up: panic mode, any server not tried yet.
            int n = 0;
            for (UpstreamServer server : servers) {
                if ((tried & bit(server)) == 0) {
                    scratch[n++] = server;
                }
            }
            if (n == 0) {
                return null;
            }
            UpstreamServer chosen = balancer.choose(scratch, n, key);
            // Panic mode sends to it whatever its state; a trial that is due starts all the same.
            chosen.claim();
            return chosen;
        }
    }

    private int collect(long skip, boolean backups) {
        int n = 0;
        for (UpstreamServer server : servers) {
            if (server.backup() == backups && (skip & bit(server)) == 0 && server.isAvailable()) {
                scratch[n++] = server;
            }
        }
        return n;
    }

    public static long bit(UpstreamServer server) {
        return 1L << server.index();
    }

    /** Counts a request's first attempt toward the retry budget's base. */
    public void requestStarted() {
        if (settings.retry().attempts() > 1) {
            budget.request(clock.getAsLong());
        }
    }

    /**
     * Whether {@code condition} allows another attempt after {@code attemptsMade}, with a server
     * left that {@link #pick} would give; the retry is taken from the budget if so.
     */
    public boolean mayRetry(UpstreamGroupConfig.RetryOn condition, int attemptsMade, long tried) {
        UpstreamGroupConfig.Retry retry = settings.retry();
        return condition != null && attemptsMade < retry.attempts() && retry.on().contains(condition)
                && hasServerLeft(tried) && budget.tryRetry(clock.getAsLong());
    }

    /** What {@link #pick} would find: an untried server that is available, else (panic) any untried one unless a tried one is up. */
    private boolean hasServerLeft(long tried) {
        boolean untried = false;
        for (UpstreamServer server : servers) {
            if ((tried & bit(server)) == 0) {
                if (server.isAvailable()) {
                    return true;
                }
                untried = true;
            }
        }
        return untried && !triedAvailable(tried);
    }

    private boolean triedAvailable(long tried) {
        for (UpstreamServer server : servers) {
            if ((tried & bit(server)) != 0 && server.isAvailable()) {
                return true;
            }
        }
        return false;
    }

    /** A retry went out. */
    public void retried() {
        retries.increment();
    }

    public long retries() {
        return retries.sum();
    }

    public long responseTimeoutMillis() {
        return settings.pool().responseTimeout().toMillis();
    }
}
