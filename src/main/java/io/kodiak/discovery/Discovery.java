package io.kodiak.discovery;

import io.kodiak.config.ProxyConfig;
import io.kodiak.config.UpstreamGroupConfig;
import io.kodiak.upstream.ServerDirectory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The names of the configuration that are looked up while Kodiak runs, each on its own schedule
 * (its answer's TTL, capped by proxy.resolver.valid), on resolver threads of its own: never on an
 * event loop, and never on the timer thread, whose ticks must not wait for DNS. A changed answer
 * asks {@link Applier} to rebuild the groups; the groups read the answers through {@link
 * #servers}, so that a rebuild and a reload are the same build.
 */
public final class Discovery implements ServerDirectory {
    private static final Logger LOG = LoggerFactory.getLogger(Discovery.class);
    /** A TTL of 0 would ask in a loop: one second at least between two lookups of a name. */
    static final Duration MIN_INTERVAL = Duration.ofSeconds(1);
    /** After a failure the name is asked again this soon at most (sooner when valid is shorter). */
    static final Duration RETRY = Duration.ofSeconds(5);
    /** Lookups of different names at once: one name that times out does not hold the others up. */
    private static final int THREADS = 4;

    private final ProxyConfig.Resolver settings;
    private final Lookups lookups;
    private final Applier applier;
    private final ScheduledExecutorService threads;
    private final Map<DnsName, Watch> watched = new ConcurrentHashMap<>();

    /** {@code changed}: rebuilds the groups from {@link #servers}; run on a thread of its own, never two at once. */
    public Discovery(ProxyConfig.Resolver settings, Lookups lookups, Runnable changed) {
        this.settings = settings;
        this.lookups = lookups;
        this.applier = new Applier(changed);
        ScheduledThreadPoolExecutor pool = new ScheduledThreadPoolExecutor(THREADS, new DaemonThreads("kodiak-resolver"));
        pool.setRemoveOnCancelPolicy(true);
        this.threads = pool;
    }

    /** The resolver settings in service (a restart applies others). */
    public ProxyConfig.Resolver settings() {
        return settings;
    }

    /**
     * Starts watching the names {@code config} uses that are not watched yet, and waits for their
     * first lookups, each bounded by the query timeout: the groups built next have their
     * addresses. A name that did not resolve by then leaves its group without servers until it
     * does; nothing fails here.
     */
    public void watch(ProxyConfig config) {
        List<CompletableFuture<Void>> first = new ArrayList<>();
        for (DnsName name : names(config)) {
            watched.computeIfAbsent(name, n -> {
                Watch watch = new Watch(new WatchedName(n));
                first.add(watch.first);
                watch.schedule(0);
                return watch;
            });
        }
        if (first.isEmpty()) {
            return;
        }
        // An SRV lookup asks for the records, then A and AAAA of each target.
        long bound = settings.timeout().toMillis() * 4 + 500;
        try {
            CompletableFuture.allOf(first.toArray(CompletableFuture[]::new)).get(bound, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            LOG.warn("resolver: first lookups not all answered within {} ms; their groups get servers when they are", bound);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    /** Stops watching the names {@code config} no longer uses (after a reload put it in service). */
    public void retain(ProxyConfig config) {
        Set<DnsName> used = names(config);
        watched.entrySet().removeIf(entry -> {
            if (used.contains(entry.getKey())) {
                return false;
            }
            entry.getValue().cancel();
            return true;
        });
    }

    @Override
    public Found servers(UpstreamGroupConfig configured) {
        return GroupServers.of(configured, name -> {
            Watch watch = watched.get(name);
            return watch == null ? null : watch.name;
        });
    }

    /** Every name watched now, for /upstreams, status and the metrics. */
    public List<WatchedName> names() {
        return watched.values().stream().map(w -> w.name).toList();
    }

    public void stop() {
        watched.values().forEach(Watch::cancel);
        threads.shutdownNow();
        applier.stop();
    }

    static Set<DnsName> names(ProxyConfig config) {
        Set<DnsName> names = new LinkedHashSet<>();
        for (UpstreamGroupConfig group : config.groups()) {
            if (group.srv() != null) {
                names.add(new DnsName(DnsName.Kind.SRV, group.srv()));
            }
            for (UpstreamGroupConfig.Server server : group.servers()) {
                if (server.resolve()) {
                    names.add(new DnsName(DnsName.Kind.ADDRESSES, server.host()));
                }
            }
        }
        return names;
    }

    /** How long a good answer is used: its TTL, at least {@link #MIN_INTERVAL}, at most valid. */
    static long refreshMillis(long ttlSeconds, Duration valid) {
        long ttl = Math.min(ttlSeconds, valid.toSeconds() + 1) * 1000;
        return Math.max(MIN_INTERVAL.toMillis(), Math.min(ttl, valid.toMillis()));
    }

    static long retryMillis(Duration valid) {
        return Math.max(MIN_INTERVAL.toMillis(), Math.min(RETRY.toMillis(), valid.toMillis()));
    }

    /** One name's schedule: one lookup at a time, the next scheduled when it is done. */
    private final class Watch {
        final WatchedName name;
        final CompletableFuture<Void> first = new CompletableFuture<>();
        /** Guarded by this. */
        private ScheduledFuture<?> next;
        private boolean cancelled;

        Watch(WatchedName name) {
            this.name = name;
        }

        synchronized void schedule(long delayMillis) {
            if (!cancelled && !threads.isShutdown()) {
                next = threads.schedule(this::lookUp, delayMillis, TimeUnit.MILLISECONDS);
            }
        }

        synchronized void cancel() {
            cancelled = true;
            if (next != null) {
                next.cancel(false);
            }
            first.complete(null);
        }

        private void lookUp() {
            boolean changed;
            long delay;
            try {
                Answer answer = name.name().kind() == DnsName.Kind.SRV ? lookups.srv(name.name().name())
                        : lookups.addresses(name.name().name());
                changed = name.resolved(answer, Instant.now());
                delay = refreshMillis(answer.ttlSeconds(), settings.valid());
            } catch (LookupFailed e) {
                changed = name.failed(e.getMessage());
                delay = retryMillis(settings.valid());
            } catch (RuntimeException e) {
                changed = name.failed(e.toString());
                delay = retryMillis(settings.valid());
            }
            // First the waiter, then the rebuild: a reload waiting here holds the lock the rebuild takes.
            first.complete(null);
            if (changed) {
                applier.request();
            }
            schedule(delay);
        }
    }
}
