package io.kodiak.admin;

import io.kodiak.Kodiak;
import io.kodiak.upstream.UpstreamGroup;
import io.kodiak.upstream.UpstreamPool;
import io.kodiak.upstream.UpstreamServer;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

import java.util.function.ToDoubleFunction;

/** Meters read from the running proxy at scrape time: client connections, exchanges in flight, drain state, upstream pools. */
final class ProxyGauges {
    private ProxyGauges() {
    }

    static void register(MeterRegistry registry, Kodiak kodiak) {
        proxy(registry, kodiak, "kodiak.inflight.exchanges", k -> k.drain().inFlight(),
                "Exchanges accepted and not yet finished");
        proxy(registry, kodiak, "kodiak.draining", k -> k.drain().isDraining() ? 1 : 0,
                "1 while the proxy is stopping: refusing new requests and finishing those in flight");
        proxy(registry, kodiak, "kodiak.client.connections", k -> k.listener().openConnections(),
                "Client connections open");
        proxy(registry, kodiak, "kodiak.client.connections.max", k -> k.listener().maxConnections(),
                "The client connection limit (proxy.listener.max-connections, resolved)");
        proxy(registry, kodiak, "kodiak.listener.accept.paused", k -> k.listener().acceptPaused() ? 1 : 0,
                "1 while the client connection limit holds new clients in the listen queue");
        FunctionCounter.builder("kodiak.listener.accept.pauses", kodiak, k -> k.listener().acceptPauses())
                .description("Times accepting paused because the client connection limit was reached")
                .register(registry);
        for (UpstreamGroup group : kodiak.upstreams().groups()) {
            FunctionCounter.builder("kodiak.upstream.retries", group, UpstreamGroup::retries)
                    .description("Requests sent to another server of the group after a failure (retry)")
                    .tag("group", group.name())
                    .register(registry);
            for (UpstreamServer server : group.servers()) {
                UpstreamPool pool = server.pool();
                Tags tags = Tags.of("group", group.name(), "upstream", server.authority());
                pool(registry, pool, tags, "kodiak.upstream.pool.open", UpstreamPool::openConnections,
                        "Open connections to the upstream server (idle + leased)");
                pool(registry, pool, tags, "kodiak.upstream.pool.idle", UpstreamPool::idleConnections,
                        "Open connections waiting in the pool for the next request");
                pool(registry, pool, tags, "kodiak.upstream.pool.leased", UpstreamPool::leasedConnections,
                        "Connections carrying an exchange right now");
                pool(registry, pool, tags, "kodiak.upstream.pool.pending", UpstreamPool::pendingAcquisitions,
                        "Exchanges waiting for a connection (being opened, or all max-connections busy)");
                pool(registry, pool, tags, "kodiak.upstream.pool.max", UpstreamPool::maxConnections,
                        "The pool's limit (max-connections of its group, else proxy.upstream.max-connections)");
                Gauge.builder("kodiak.upstream.server.up", server, s -> s.status() == UpstreamServer.Status.UP ? 1 : 0)
                        .description("1 while the server takes traffic normally; 0 while it is down by health checks,"
                                + " ejected by passive health, or on its trial request")
                        .tags(tags).register(registry);
                for (UpstreamServer.Status state : UpstreamServer.Status.values()) {
                    Gauge.builder("kodiak.upstream.server.state", server, s -> s.status() == state ? 1 : 0)
                            .description("1 for the server's current state (UP, DOWN by health checks, EJECTED by"
                                    + " passive health, TRIAL: its first request after an ejection), 0 for the others")
                            .tags(tags.and("state", state.name())).register(registry);
                }
                Gauge.builder("kodiak.upstream.server.in.flight", server, UpstreamServer::inFlight)
                        .description("Requests on their way to or from the server right now")
                        .tags(tags).register(registry);
                FunctionCounter.builder("kodiak.upstream.server.requests", server, UpstreamServer::requests)
                        .description("Attempts sent to the server (a retried request counts once per server tried)")
                        .tags(tags).register(registry);
                FunctionCounter.builder("kodiak.upstream.server.failures", server, UpstreamServer::failures)
                        .description("Attempts that failed: connect failure, reset, timeout, invalid response, 502/503/504")
                        .tags(tags).register(registry);
                FunctionCounter.builder("kodiak.upstream.server.ejections", server, UpstreamServer::ejections)
                        .description("Times passive health took the server out of rotation")
                        .tags(tags).register(registry);
            }
        }
    }

    private static void proxy(MeterRegistry registry, Kodiak kodiak, String name, ToDoubleFunction<Kodiak> value,
                              String description) {
        Gauge.builder(name, kodiak, value).description(description).register(registry);
    }

    private static void pool(MeterRegistry registry, UpstreamPool pool, Tags tags, String name,
                             ToDoubleFunction<UpstreamPool> value, String description) {
        Gauge.builder(name, pool, value)
                .description(description)
                .tags(tags)
                .register(registry);
    }
}
