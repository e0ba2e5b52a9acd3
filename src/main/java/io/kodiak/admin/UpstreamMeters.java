package io.kodiak.admin;

import io.kodiak.upstream.UpstreamGroup;
import io.kodiak.upstream.UpstreamGroups;
import io.kodiak.upstream.UpstreamPool;
import io.kodiak.upstream.UpstreamServer;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The meters of the upstream groups in service: per group retries, per server state, requests,
 * failures and pool use, read at scrape time. A reload replaces changed groups and servers with
 * new objects; their series are registered anew (a server carried over keeps its counts) and
 * those of the objects no longer in service leave the registry.
 */
final class UpstreamMeters {
    private final MeterRegistry registry;
    /** Guarded by this: the series registered for each group and server object, by identity. */
    private final Map<Object, List<Meter>> byOwner = new IdentityHashMap<>();

    UpstreamMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    synchronized void update(UpstreamGroups groups) {
        Map<Object, Boolean> inService = new IdentityHashMap<>();
        for (UpstreamGroup group : groups.groups()) {
            inService.put(group, true);
            group.servers().forEach(server -> inService.put(server, true));
        }
        // Removed first: a new object's series has the same name and tags, and Micrometer would
        // hand back the old one, bound to the object being replaced.
        byOwner.entrySet().removeIf(entry -> {
            if (inService.containsKey(entry.getKey())) {
                return false;
            }
            entry.getValue().forEach(registry::remove);
            return true;
        });
        register(groups);
    }

    private void register(UpstreamGroups groups) {
        for (UpstreamGroup group : groups.groups()) {
            if (!byOwner.containsKey(group)) {
                byOwner.put(group, List.of(FunctionCounter.builder("kodiak.upstream.retries", group, UpstreamGroup::retries)
                        .description("Requests sent to another server of the group after a failure (retry)")
                        .tag("group", group.name())
                        .register(registry)));
            }
            for (UpstreamServer server : group.servers()) {
                if (byOwner.containsKey(server)) {
                    continue;
                }
                List<Meter> meters = new ArrayList<>();
                byOwner.put(server, meters);
                UpstreamPool pool = server.pool();
                Tags tags = Tags.of("group", group.name(), "upstream", server.authority());
                meters.add(pool(pool, tags, "kodiak.upstream.pool.open", UpstreamPool::openConnections,
                        "Open connections to the upstream server (idle + leased)"));
                meters.add(pool(pool, tags, "kodiak.upstream.pool.idle", UpstreamPool::idleConnections,
                        "Open connections waiting in the pool for the next request"));
                meters.add(pool(pool, tags, "kodiak.upstream.pool.leased", UpstreamPool::leasedConnections,
                        "Connections carrying an exchange right now"));
                meters.add(pool(pool, tags, "kodiak.upstream.pool.pending", UpstreamPool::pendingAcquisitions,
                        "Exchanges waiting for a connection (being opened, or all max-connections busy)"));
                meters.add(pool(pool, tags, "kodiak.upstream.pool.max", UpstreamPool::maxConnections,
                        "The pool's limit (max-connections of its group, else proxy.upstream.max-connections)"));
                if (group.settings().pool().protocol() == io.kodiak.config.UpstreamProtocolName.H2) {
                    meters.add(pool(pool, tags, "kodiak.upstream.pool.h2", UpstreamPool::openConnections,
                            "Open h2 connections to the server, each carrying many requests (only for servers spoken to in h2)"));
                }
                meters.add(Gauge.builder("kodiak.upstream.server.up", server, s -> s.status() == UpstreamServer.Status.UP ? 1 : 0)
                        .description("1 while the server takes traffic normally; 0 while it is down by health checks,"
                                + " ejected by passive health, or on its trial request")
                        .tags(tags).register(registry));
                for (UpstreamServer.Status state : UpstreamServer.Status.values()) {
                    meters.add(Gauge.builder("kodiak.upstream.server.state", server, s -> s.status() == state ? 1 : 0)
                            .description("1 for the server's current state (UP, DOWN by health checks, EJECTED by"
                                    + " passive health, TRIAL: its first request after an ejection), 0 for the others")
                            .tags(tags.and("state", state.name())).register(registry));
                }
                meters.add(Gauge.builder("kodiak.upstream.server.in.flight", server, UpstreamServer::inFlight)
                        .description("Requests on their way to or from the server right now")
                        .tags(tags).register(registry));
                meters.add(FunctionCounter.builder("kodiak.upstream.server.requests", server, UpstreamServer::requests)
                        .description("Attempts sent to the server (a retried request counts once per server tried)")
                        .tags(tags).register(registry));
                meters.add(FunctionCounter.builder("kodiak.upstream.server.failures", server, UpstreamServer::failures)
                        .description("Attempts that failed: connect failure, reset, timeout, invalid response, 502/503/504")
                        .tags(tags).register(registry));
                meters.add(FunctionCounter.builder("kodiak.upstream.server.ejections", server, UpstreamServer::ejections)
                        .description("Times passive health took the server out of rotation")
                        .tags(tags).register(registry));
            }
        }
    }

    private Meter pool(UpstreamPool pool, Tags tags, String name, ToDoubleFunction<UpstreamPool> value, String description) {
        return Gauge.builder(name, pool, value)
                .description(description)
                .tags(tags)
                .register(registry);
    }
}
