package io.kodiak.admin;

import io.kodiak.Kodiak;
import io.kodiak.upstream.UpstreamPool;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

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
        int maxConnections = kodiak.config().upstream().maxConnections();
        for (UpstreamPool pool : kodiak.upstreams().pools()) {
            String upstream = pool.target().authority();
            pool(registry, pool, upstream, "kodiak.upstream.pool.open", UpstreamPool::openConnections,
                    "Open connections to the upstream (idle + leased)");
            pool(registry, pool, upstream, "kodiak.upstream.pool.idle", UpstreamPool::idleConnections,
                    "Open connections waiting in the pool for the next request");
            pool(registry, pool, upstream, "kodiak.upstream.pool.leased", UpstreamPool::leasedConnections,
                    "Connections carrying an exchange right now");
            pool(registry, pool, upstream, "kodiak.upstream.pool.pending", UpstreamPool::pendingAcquisitions,
                    "Exchanges waiting for a connection (being opened, or all max-connections busy)");
            pool(registry, pool, upstream, "kodiak.upstream.pool.max", p -> maxConnections,
                    "The pool's limit (proxy.upstream.max-connections)");
        }
    }

    private static void proxy(MeterRegistry registry, Kodiak kodiak, String name, ToDoubleFunction<Kodiak> value,
                              String description) {
        Gauge.builder(name, kodiak, value).description(description).register(registry);
    }

    private static void pool(MeterRegistry registry, UpstreamPool pool, String upstream, String name,
                             ToDoubleFunction<UpstreamPool> value, String description) {
        Gauge.builder(name, pool, value)
                .description(description)
                .tag("upstream", upstream)
                .register(registry);
    }
}
