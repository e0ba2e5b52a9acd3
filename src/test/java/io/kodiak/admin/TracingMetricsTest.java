package io.kodiak.admin;

import io.kodiak.support.Await;
import io.kodiak.support.RecordingUpstream;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** kodiak_tracing_spans_*: what became of the spans, in /metrics while tracing runs, and no series while it is off. */
class TracingMetricsTest {
    private static final Pattern DROPPED = Pattern.compile("(?m)^kodiak_tracing_spans_dropped_total (\\S+)$");

    @Test
    void spansDroppedForACollectorThatIsDownAreCounted() throws Exception {
        int closed;
        try (ServerSocket probe = new ServerSocket(0)) {
            closed = probe.getLocalPort();
        }
        try (RecordingUpstream upstream = new RecordingUpstream(RecordingUpstream.ECHO);
             AdminHarness harness = AdminHarness.start("proxy.routes = [ { prefix = \"/\", upstream = \"" + upstream.url("/")
                     + "\" } ]\nproxy.tracing { enabled = true, sampler = 1, max-queued-spans = 1, otlp.endpoint = "
                     + "\"http://127.0.0.1:" + closed + "/v1/traces\" }\n")) {
            for (int i = 0; i < 50; i++) {
                assertEquals(200, harness.proxyPost("/n", "x").statusCode());
            }
            Await.await(() -> dropped(harness) > 0, () -> "a drop counted in " + metricsOf(harness));
            String metrics = harness.metrics();
            assertTrue(metrics.contains("kodiak_tracing_spans_exported_total 0.0"), metrics);
            assertTrue(metrics.contains("kodiak_tracing_spans_failed_total"), metrics);
        }
    }

    @Test
    void offThereIsNoTracingSeries() throws Exception {
        try (AdminHarness harness = AdminHarness.start("proxy.routes = [ { prefix = \"/\", upstream = \"http://127.0.0.1:1/\" } ]\n")) {
            assertFalse(harness.metrics().contains("kodiak_tracing"));
        }
    }

    private static double dropped(AdminHarness harness) {
        Matcher matcher = DROPPED.matcher(metricsOf(harness));
        return matcher.find() ? Double.parseDouble(matcher.group(1)) : -1;
    }

    private static String metricsOf(AdminHarness harness) {
        try {
            return harness.metrics();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
