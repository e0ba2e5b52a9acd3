package io.kodiak.admin;

import com.typesafe.config.ConfigFactory;
import io.kodiak.config.ConfigLoader;
import io.kodiak.routing.Route;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

class ProxyMetricsTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ProxyMetrics metrics = new ProxyMetrics(registry, routes());

    private static List<Route> routes() {
        return ConfigLoader.fromConfig(ConfigFactory.parseString("""
                proxy.routes = [
                  { prefix = "/", upstream = "http://127.0.0.1:8080/a" },
                  { prefix = "/api", upstream = "http://127.0.0.1:8081/b" },
                  { prefix = "/api2", upstream = "http://127.0.0.1:8081/c" }
                ]
                """)).routes();
    }

    /** Timers as a scrape sees them: after the latency feed was drained. */
    private io.micrometer.core.instrument.search.RequiredSearch latency(String name) {
        metrics.drainLatencies();
        return registry.get(name);
    }

    private double requests(String route, String statusClass) {
        return registry.get("kodiak.requests").tag("route", route).tag("status_class", statusClass).counter().count();
    }

    @Test
    void countsExchangesByRouteAndStatusClass() {
        metrics.onExchange("/api", "127.0.0.1:8081", 200, 0, 10, 1_000, 2_000);
        metrics.onExchange("/api", "127.0.0.1:8081", 204, 0, 0, 1_000, 2_000);
        metrics.onExchange("/api", "127.0.0.1:8081", 499, 0, 0, 1_000, 2_000);
        metrics.onExchange("/", "127.0.0.1:8080", 503, 0, 0, 1_000, 2_000);
        metrics.onExchange("/", "127.0.0.1:8080", 999, 0, 0, 1_000, 2_000);

        assertEquals(2, requests("/api", "2xx"));
        assertEquals(1, requests("/api", "4xx"), "499 (client left) is a 4xx");
        assertEquals(0, requests("/api", "5xx"));
        assertEquals(1, requests("/", "5xx"));
        assertEquals(1, requests("/", "other"));
    }

    @Test
    void exchangesWithoutARouteCountUnderNone() {
        metrics.onExchange(null, null, 404, 0, 0, -1, 1_000);
        metrics.onExchange("/not-configured", null, 400, 0, 0, -1, 1_000);

        assertEquals(2, requests(ProxyMetrics.NO_ROUTE, "4xx"));
    }

    @Test
    void recordsLatencyAndBodyBytes() {
        metrics.onExchange("/api", "127.0.0.1:8081", 200, 100, 2_000, TimeUnit.MILLISECONDS.toNanos(3),
                TimeUnit.MILLISECONDS.toNanos(5));
        metrics.onExchange("/api", "127.0.0.1:8081", 200, 50, 0, TimeUnit.MILLISECONDS.toNanos(7),
                TimeUnit.MILLISECONDS.toNanos(9));

        Timer total = latency("kodiak.request.duration").tag("route", "/api").timer();
        assertEquals(2, total.count());
        assertEquals(14, total.totalTime(TimeUnit.MILLISECONDS), 0.001);
        Timer upstream = latency("kodiak.upstream.duration").tag("upstream", "127.0.0.1:8081").timer();
        assertEquals(10, upstream.totalTime(TimeUnit.MILLISECONDS), 0.001);
        assertEquals(150, registry.get("kodiak.request.body").tag("route", "/api").counter().count());
        assertEquals(2_000, registry.get("kodiak.response.body").tag("route", "/api").counter().count());
    }

    @Test
    void routesToTheSameUpstreamShareItsLatencyMeter() {
        metrics.onExchange("/api", "127.0.0.1:8081", 200, 0, 0, 1_000, 2_000);
        metrics.onExchange("/api2", "127.0.0.1:8081", 200, 0, 0, 1_000, 2_000);

        assertEquals(2, latency("kodiak.upstream.duration").tag("upstream", "127.0.0.1:8081").timer().count());
        assertEquals(2, latency("kodiak.upstream.duration").timers().size(), "one upstream timer per host:port");
    }

    @Test
    void upstreamLatencyIsOnlyRecordedWhenARequestWentUpstream() {
        metrics.onExchange("/api", null, 503, 0, 0, -1, 1_000);

        assertEquals(0, latency("kodiak.upstream.duration").tag("upstream", "127.0.0.1:8081").timer().count());
        assertEquals(1, latency("kodiak.request.duration").tag("route", "/api").timer().count());
    }

    @Test
    void errorsAreCountedByCauseIncludingCausesNotKnownInAdvance() {
        Counter reset = registry.get("kodiak.errors").tag("cause", "reset").counter();
        assertEquals(0, reset.count(), "known causes exist before their first error");

        metrics.onError("reset");
        metrics.onError("reset");
        metrics.onError("something_new");

        assertEquals(2, reset.count());
        Counter fresh = registry.find("kodiak.errors").tag("cause", "something_new").counter();
        assertNotNull(fresh);
        assertEquals(1, fresh.count());
    }
}
