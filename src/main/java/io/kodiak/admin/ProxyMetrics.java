package io.kodiak.admin;

import io.kodiak.exchange.ExchangeObserver;
import io.kodiak.exchange.ProxyError;
import io.kodiak.routing.Route;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Turns the core's exchange and error events into Micrometer meters. Every meter an exchange
 * touches is created here, up front; the per-exchange path is one lookup by the route name
 * (the same String instance each time, whose hash is cached), a handful of increments and two
 * latency samples appended to this thread's ring of the {@link TimerFeed}.
 */
public final class ProxyMetrics implements ExchangeObserver, io.kodiak.tls.TlsObserver, io.kodiak.h2.Http2Observer {
    /** Label for exchanges Kodiak answered before or without routing (no route, draining, bad request). */
    static final String NO_ROUTE = "none";

    /** Causes the core reports; registered up front so each series exists (at 0) before its first error. */
    private static final List<String> KNOWN_CAUSES = ProxyError.causes();

    private final MeterRegistry registry;
    /** Replaced whole when a reload changes the routes; read without a lock on every exchange. */
    private volatile Map<String, RouteMeters> byRoute = Map.of();
    /** Guarded by this: the upstream latency timers by upstream authority, shared by the routes to it. */
    private Map<String, Timer> upstreamTimers = Map.of();
    private final RouteMeters unrouted;
    private final Map<String, Counter> errorsByCause = new ConcurrentHashMap<>();
    private final TimerFeed timerFeed = new TimerFeed();
    /** HTTP/2 streams open now, all connections together (one add per stream opened and one per stream closed). */
    private final java.util.concurrent.atomic.LongAdder http2StreamsOpen = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder http2UpstreamConnections = new java.util.concurrent.atomic.LongAdder();

    public ProxyMetrics(MeterRegistry registry, List<Route> routes) {
        this.registry = registry;
        routes(routes);
        unrouted = new RouteMeters(registry, NO_ROUTE, null, timerFeed);
        KNOWN_CAUSES.forEach(this::errorCounter);
        io.micrometer.core.instrument.Gauge.builder("kodiak.http2.streams.open", http2StreamsOpen, java.util.concurrent.atomic.LongAdder::sum)
                .description("HTTP/2 streams open from clients now").register(registry);
        io.micrometer.core.instrument.Gauge.builder("kodiak.http2.upstream.connections", http2UpstreamConnections,
                        java.util.concurrent.atomic.LongAdder::sum)
                .description("h2 connections open to upstream servers now, on every loop").register(registry);
    }

    /**
     * The meters of {@code routes}, after a reload: an unchanged route keeps its series; a removed
     * route's and a no longer used upstream's series leave the registry.
     */
    synchronized void routes(List<Route> routes) {
        Map<String, Timer> timers = new HashMap<>();
        Map<String, RouteMeters> next = new HashMap<>();
        for (Route route : routes) {
            // Registering an existing series returns it: an unchanged route continues its counts.
            Timer upstreamTimer = timers.computeIfAbsent(route.target().authority(), u -> MeterDefinitions.latency(
                            "kodiak.upstream.duration",
                            "Time from the request being sent upstream to the first byte of the response")
                    .tag("upstream", u)
                    .register(registry));
            next.put(route.name(), new RouteMeters(registry, route.name(), upstreamTimer, timerFeed));
        }
        byRoute.forEach((name, meters) -> {
            if (!next.containsKey(name)) {
                meters.removeFrom(registry);
            }
        });
        upstreamTimers.forEach((upstream, timer) -> {
            if (!timers.containsKey(upstream)) {
                registry.remove(timer);
            }
        });
        byRoute = Map.copyOf(next);
        upstreamTimers = timers;
    }

    @Override
    public void onExchange(String routeName, String upstream, int status, long bytesIn, long bytesOut,
                           long upstreamNanos, long totalNanos) {
        RouteMeters meters = routeName == null ? unrouted : byRoute.getOrDefault(routeName, unrouted);
        meters.record(status, bytesIn, bytesOut, upstreamNanos, totalNanos);
    }

    /** Brings the latency timers up to date with every exchange recorded so far (before a scrape, and on a tick). */
    void drainLatencies() {
        timerFeed.drain();
    }

    @Override
    public void onError(String cause) {
        Counter counter = errorsByCause.get(cause);
        if (counter == null) {
            counter = errorCounter(cause);
        }
        counter.increment();
    }

    /** Per handshake: a registry lookup by tags is cheap next to the handshake itself. */
    @Override
    public void handshake(String side, String protocol, String cipher) {
        Counter.builder("kodiak.tls.handshakes")
                .description("Completed TLS handshakes by side (client: the listener; upstream: https:// servers), protocol and cipher suite")
                .tag("side", side).tag("protocol", protocol).tag("cipher", cipher)
                .register(registry).increment();
    }

    @Override
    public void handshakeFailed(String side, String reason) {
        Counter.builder("kodiak.tls.handshake.failures")
                .description("Failed TLS handshakes by side and reason (certificate, protocol, cipher, handshake, io)")
                .tag("side", side).tag("reason", reason)
                .register(registry).increment();
    }

    @Override
    public void streamOpened() {
        http2StreamsOpen.increment();
    }

    @Override
    public void streamClosed() {
        http2StreamsOpen.decrement();
    }

    /** Per reset: resets are rare next to streams (a flood of them ends its connection). */
    @Override
    public void streamReset(boolean byClient, String code) {
        Counter.builder("kodiak.http2.resets")
                .description("HTTP/2 streams reset, by the client or by Kodiak, by RST_STREAM code (REFUSED_STREAM: refused)")
                .tag("by", byClient ? "client" : "kodiak").tag("code", code)
                .register(registry).increment();
    }

    @Override
    public void goAway(boolean byClient, String code) {
        Counter.builder("kodiak.http2.goaways")
                .description("HTTP/2 GOAWAY frames sent to clients and received from them, by error code")
                .tag("direction", byClient ? "received" : "sent").tag("code", code)
                .register(registry).increment();
    }

    @Override
    public void upstreamConnection(int change) {
        http2UpstreamConnections.add(change);
    }

    @Override
    public void upstreamStreamReset(String code) {
        Counter.builder("kodiak.http2.upstream.resets")
                .description("Streams h2 upstream servers reset, by RST_STREAM code (REFUSED_STREAM: refused, sent again)")
                .tag("code", code)
                .register(registry).increment();
    }

    @Override
    public void upstreamGoAway(String code) {
        Counter.builder("kodiak.http2.upstream.goaways")
                .description("GOAWAY frames received from h2 upstream servers, by error code")
                .tag("code", code)
                .register(registry).increment();
    }

    private Counter errorCounter(String cause) {
        return errorsByCause.computeIfAbsent(cause, c -> Counter.builder("kodiak.errors")
                .description("Failed or refused exchanges by cause")
                .tag("cause", c)
                .register(registry));
    }
}
