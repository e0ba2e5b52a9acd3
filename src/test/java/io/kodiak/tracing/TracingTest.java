package io.kodiak.tracing;

import io.kodiak.support.AccessLogLines;
import io.kodiak.support.Await;
import io.kodiak.support.OtlpReceiver;
import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import io.kodiak.support.RecordingUpstream;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.net.URI;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * proxy.tracing end to end: a client's request through Kodiak to a recording upstream, the spans
 * sent to a test OTLP/HTTP collector ({@link OtlpReceiver}) and read back from its protobuf. The
 * stop flushes the spans (the SDK's shutdown), so a test closes the proxy and then reads what the
 * collector got: nothing is left to a timer.
 */
class TracingTest {
    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String PARENT_ID = "00f067aa0ba902b7";
    private static final Pattern TRACEPARENT = Pattern.compile("00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})");

    private RecordingUpstream upstream;
    private OtlpReceiver collector;
    private ProxyHarness proxy;

    @BeforeEach
    void start() throws Exception {
        upstream = new RecordingUpstream(RecordingUpstream.ECHO);
        collector = new OtlpReceiver();
    }

    @AfterEach
    void stop() throws Exception {
        if (proxy != null) {
            proxy.close();
        }
        upstream.close();
        collector.close();
    }

    private void startProxy(String tracing) throws Exception {
        proxy = ProxyHarness.forUpstream(upstream.url("/"), "proxy.tracing { enabled = true, service-name = \"kodiak-test\","
                + " otlp.endpoint = \"" + collector.endpoint() + "\"\n" + tracing + " }\n"
                + "proxy.access-log.format = \"$status $trace_id $span_id\"\n");
    }

    private RawHttp.Response get(String path, String... fields) throws Exception {
        StringBuilder request = new StringBuilder("GET " + path + " HTTP/1.1\r\nHost: example.com\r\n");
        for (String field : fields) {
            request.append(field).append("\r\n");
        }
        try (RawHttp client = new RawHttp(proxy.port())) {
            return client.send(request.append("Connection: close\r\n\r\n").toString()).read();
        }
    }

    /** The sampled flag of a traceparent's flags (W3C level 2 adds 02, "random", to a new root's). */
    private static boolean sampled(Matcher traceparent) {
        return (Integer.parseInt(traceparent.group(3), 16) & 1) == 1;
    }

    /** The access log's lines once {@code count} are there (a line is written as its exchange ends, after the answer). */
    private static List<String> linesOnceThere(AccessLogLines lines, int count) throws InterruptedException {
        Await.await(() -> lines.lines().size() >= count, () -> "access log lines: " + lines.lines());
        return lines.lines();
    }

    /** The traceparent the upstream got for the last request, as its parts. */
    private Matcher upstreamTraceparent() {
        List<RecordingUpstream.Received> received = upstream.received();
        String value = received.get(received.size() - 1).header("traceparent");
        assertTrue(value != null, "the upstream got a traceparent");
        Matcher parts = TRACEPARENT.matcher(value);
        assertTrue(parts.matches(), value);
        return parts;
    }

    /** Stops the proxy (which flushes its spans) and returns what the collector got. */
    private List<OtlpReceiver.Received> spansAfterStop() {
        proxy.close();
        proxy = null;
        return collector.spans();
    }

    @Test
    void aValidTraceparentIsContinuedWithKodiaksSpanAsTheUpstreamsParent() throws Exception {
        startProxy("sampler = 0");
        RawHttp.Response response;
        List<String> log;
        try (AccessLogLines lines = new AccessLogLines()) {
            response = get("/items/7?x=1", "traceparent: 00-" + TRACE_ID + "-" + PARENT_ID + "-01",
                    "tracestate: rojo=00f067aa0ba902b7,congo=t61rcWkgMzE");
            log = linesOnceThere(lines, 1);
        }
        assertEquals(200, response.status());
        Matcher sent = upstreamTraceparent();
        assertEquals(TRACE_ID, sent.group(1), "the trace goes on");
        assertNotEquals(PARENT_ID, sent.group(2), "Kodiak's span is the upstream's parent");
        assertEquals("01", sent.group(3), "sampled, as the client said (whatever the sampler)");
        RecordingUpstream.Received received = upstream.received().get(0);
        assertEquals(1, received.count("traceparent"));
        assertEquals("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE", received.header("tracestate"));

        List<OtlpReceiver.Received> spans = spansAfterStop();
        assertEquals(1, spans.size(), spans.toString());
        OtlpReceiver.Received span = spans.get(0);
        assertEquals(TRACE_ID, span.traceId());
        assertEquals(PARENT_ID, span.parentSpanId());
        assertEquals(sent.group(2), span.spanId());
        assertEquals(Span.SpanKind.SPAN_KIND_SERVER, span.span().getKind());
        assertEquals("GET /", span.span().getName());
        assertEquals("GET", span.attribute("http.request.method"));
        assertEquals("/", span.attribute("http.route"));
        assertEquals("/items/7", span.attribute("url.path"));
        assertEquals("x=1", span.attribute("url.query"));
        assertEquals("200", span.attribute("http.response.status_code"));
        assertEquals("1.1", span.attribute("network.protocol.version"));
        assertEquals("127.0.0.1", span.attribute("server.address"));
        assertEquals(String.valueOf(URI.create(upstream.url("/")).getPort()), span.attribute("server.port"));
        assertEquals("kodiak-test", span.resourceAttribute("service.name"));
        assertEquals(Status.StatusCode.STATUS_CODE_UNSET, span.span().getStatus().getCode());
        assertTrue(span.span().getEndTimeUnixNano() >= span.span().getStartTimeUnixNano());
        assertEquals(List.of("200 " + TRACE_ID + " " + span.spanId()), log);
    }

    @Test
    void aNewRootIsSampledByTheRatio() throws Exception {
        startProxy("sampler = 1");
        assertEquals(200, get("/a").status());
        Matcher sent = upstreamTraceparent();
        assertTrue(sampled(sent), sent.group());
        List<OtlpReceiver.Received> spans = spansAfterStop();
        assertEquals(1, spans.size());
        assertEquals(sent.group(1), spans.get(0).traceId());
        assertEquals(sent.group(2), spans.get(0).spanId());
        assertEquals("", spans.get(0).parentSpanId(), "a root span");
    }

    @Test
    void aNewRootNotSampledExportsNothingAndTellsTheUpstreamSo() throws Exception {
        startProxy("sampler = 0");
        List<String> log;
        try (AccessLogLines lines = new AccessLogLines()) {
            assertEquals(200, get("/a").status());
            log = linesOnceThere(lines, 1);
        }
        Matcher sent = upstreamTraceparent();
        assertNotEquals("00000000000000000000000000000000", sent.group(1));
        assertTrue(!sampled(sent), sent.group() + ": a fresh trace, not sampled");
        assertEquals(List.of("200 " + sent.group(1) + " " + sent.group(2)), log, "the ids are logged, sampled or not");
        assertEquals(List.of(), spansAfterStop());
        assertEquals(0, collector.requests());
    }

    @Test
    void aParentNotSampledIsNotSampledHereEither() throws Exception {
        startProxy("sampler = 1");
        assertEquals(200, get("/a", "traceparent: 00-" + TRACE_ID + "-" + PARENT_ID + "-00").status());
        Matcher sent = upstreamTraceparent();
        assertEquals(TRACE_ID, sent.group(1));
        assertEquals("00", sent.group(3));
        assertEquals(List.of(), spansAfterStop());
    }

    @Test
    void anInvalidTraceparentIsReplacedByANewTraceAndItsTracestateDropped() throws Exception {
        startProxy("sampler = 1");
        String[] invalid = {
                "00-" + TRACE_ID.toUpperCase() + "-" + PARENT_ID + "-01",
                "00-00000000000000000000000000000000-" + PARENT_ID + "-01",
                "00-" + TRACE_ID + "-0000000000000000-01",
                "ff-" + TRACE_ID + "-" + PARENT_ID + "-01",
                "00-" + TRACE_ID + "-" + PARENT_ID + "-01-extra",
                "00-" + TRACE_ID + "-" + PARENT_ID,
        };
        for (String value : invalid) {
            assertEquals(200, get("/a", "traceparent: " + value, "tracestate: rojo=1").status());
            Matcher sent = upstreamTraceparent();
            assertNotEquals(TRACE_ID, sent.group(1), value);
            RecordingUpstream.Received received = upstream.received().get(upstream.received().size() - 1);
            assertEquals(1, received.count("traceparent"), value);
            assertNull(received.header("tracestate"), value + ": tracestate of a trace not continued");
        }
        // Two traceparent fields: which is the parent cannot be told.
        assertEquals(200, get("/a", "traceparent: 00-" + TRACE_ID + "-" + PARENT_ID + "-01",
                "traceparent: 00-" + TRACE_ID + "-" + PARENT_ID + "-01").status());
        assertNotEquals(TRACE_ID, upstreamTraceparent().group(1));
        List<OtlpReceiver.Received> spans = spansAfterStop();
        assertEquals(invalid.length + 1, spans.size());
        for (OtlpReceiver.Received span : spans) {
            assertEquals("", span.parentSpanId(), "a new root");
        }
    }

    @Test
    void aLaterVersionIsReadForItsVersion00Fields() throws Exception {
        startProxy("sampler = 0");
        assertEquals(200, get("/a", "traceparent: 01-" + TRACE_ID + "-" + PARENT_ID + "-01-whatever-comes").status());
        Matcher sent = upstreamTraceparent();
        assertEquals(TRACE_ID, sent.group(1));
        assertEquals("01", sent.group(3));
        assertEquals(PARENT_ID, spansAfterStop().get(0).parentSpanId());
    }

    @Test
    void aFailureKodiakAnswersIsAnErrorWithItsCauseAndEachRetryAnEvent() throws Exception {
        int dead1;
        int dead2;
        try (ServerSocket a = new ServerSocket(0); ServerSocket b = new ServerSocket(0)) {
            dead1 = a.getLocalPort();
            dead2 = b.getLocalPort();
        }
        proxy = ProxyHarness.start("proxy.tracing { enabled = true, sampler = 1, otlp.endpoint = \"" + collector.endpoint()
                + "\" }\nproxy.upstreams { app { servers = [\"http://127.0.0.1:" + dead1 + "\", \"http://127.0.0.1:" + dead2
                + "\"] } }\nproxy.routes = [ { prefix = \"/api/\", upstream = \"http://app/\" } ]\n");
        assertEquals(502, get("/api/x").status());
        List<OtlpReceiver.Received> spans = spansAfterStop();
        assertEquals(1, spans.size());
        OtlpReceiver.Received span = spans.get(0);
        assertEquals("/api/", span.attribute("http.route"));
        assertEquals("502", span.attribute("http.response.status_code"));
        assertEquals("connect", span.attribute("error.type"));
        assertEquals("2", span.attribute("kodiak.upstream.attempts"));
        assertEquals(Status.StatusCode.STATUS_CODE_ERROR, span.span().getStatus().getCode());
        assertTrue(span.span().getStatus().getMessage().startsWith("connect: "), span.span().getStatus().getMessage());
        assertEquals(1, span.span().getEventsCount(), "one retry");
        assertEquals("retry", span.span().getEvents(0).getName());
    }

    @Test
    void anHttp2RequestIsTracedAsAnHttp1OneIs() throws Exception {
        startProxy("sampler = 0");
        try (io.kodiak.support.H2Client client = io.kodiak.support.H2Client.connect(proxy.port())) {
            int stream = client.request("GET", "/h2", null, "traceparent", "00-" + TRACE_ID + "-" + PARENT_ID + "-01",
                    "tracestate", "rojo=1");
            assertEquals(200, client.response(stream).status());
        }
        Matcher sent = upstreamTraceparent();
        assertEquals(TRACE_ID, sent.group(1));
        assertEquals("rojo=1", upstream.received().get(0).header("tracestate"));
        List<OtlpReceiver.Received> spans = spansAfterStop();
        assertEquals(1, spans.size());
        assertEquals(sent.group(2), spans.get(0).spanId());
        assertEquals(PARENT_ID, spans.get(0).parentSpanId());
        assertEquals("2", spans.get(0).attribute("network.protocol.version"));
    }

    @Test
    void anH2UpstreamGetsTheTraceparentToo() throws Exception {
        try (io.kodiak.support.H2Server h2 = io.kodiak.support.H2Server.start()) {
            proxy = ProxyHarness.start("proxy.tracing { enabled = true, sampler = 0, otlp.endpoint = \""
                    + collector.endpoint() + "\" }\nproxy.routes = [ { prefix = \"/\", upstream = \"" + h2.url()
                    + "/\", protocol = \"h2\" } ]\n");
            java.util.concurrent.CompletableFuture<io.kodiak.support.H2Server.Request> seen =
                    new java.util.concurrent.CompletableFuture<>();
            Thread server = new Thread(() -> {
                try (io.kodiak.support.H2Server.Conn conn = h2.accept()) {
                    io.kodiak.support.H2Server.Request request = conn.request();
                    seen.complete(request);
                    conn.respond(request.stream(), 200, "ok", "content-length", "2");
                    conn.until(GOAWAY_OR_CLOSE);
                } catch (Exception e) {
                    seen.completeExceptionally(e);
                }
            }, "h2-upstream");
            server.setDaemon(true);
            server.start();
            assertEquals(200, get("/a", "traceparent: 00-" + TRACE_ID + "-" + PARENT_ID + "-01").status());
            String traceparent = seen.get(10, java.util.concurrent.TimeUnit.SECONDS).field("traceparent");
            Matcher sent = TRACEPARENT.matcher(traceparent == null ? "" : traceparent);
            assertTrue(sent.matches(), traceparent);
            assertEquals(TRACE_ID, sent.group(1));
            List<OtlpReceiver.Received> spans = spansAfterStop();
            assertEquals(1, spans.size());
            assertEquals(sent.group(2), spans.get(0).spanId());
        }
    }

    private static final int GOAWAY_OR_CLOSE = io.kodiak.support.H2Server.GOAWAY;

    @Test
    void offTheTraceHeadersAreOrdinaryFieldsAndNothingRuns() throws Exception {
        proxy = ProxyHarness.forUpstream(upstream.url("/"), "proxy.tracing.otlp.endpoint = \"" + collector.endpoint() + "\"\n");
        assertNull(proxy.kodiak().tracing());
        String invalid = "00-" + TRACE_ID.toUpperCase() + "-" + PARENT_ID + "-01";
        assertEquals(200, get("/a", "traceparent: " + invalid, "tracestate: rojo=1").status());
        RecordingUpstream.Received received = upstream.received().get(0);
        assertEquals(invalid, received.header("traceparent"));
        assertEquals("rojo=1", received.header("tracestate"));
        assertEquals(List.of(), spansAfterStop());
        assertEquals(0, collector.requests());
    }

    @Test
    void aCollectorThatIsDownSlowsNothingAndItsDropsAreCounted() throws Exception {
        String down;
        try (ServerSocket closed = new ServerSocket(0)) {
            down = "http://127.0.0.1:" + closed.getLocalPort() + "/v1/traces";
        }
        proxy = ProxyHarness.forUpstream(upstream.url("/"), "proxy.tracing { enabled = true, sampler = 1,"
                + " max-queued-spans = 1, otlp.endpoint = \"" + down + "\" }\n");
        assertAnswersPromptly(200);
        Tracing tracing = proxy.kodiak().tracing();
        Await.await(() -> tracing.droppedSpans() > 0, () -> "dropped spans (" + tracing.failedSpans() + " failed)");
        long stopping = System.nanoTime();
        proxy.close();
        proxy = null;
        long stopMillis = (System.nanoTime() - stopping) / 1_000_000;
        // The drain (nothing in flight) and the SDK's shutdown, bounded whatever the collector does
        // (unbounded, it would wait out the exporter's retries); the margin is for a loaded machine.
        assertTrue(stopMillis < Tracing.SHUTDOWN_MILLIS + 5_000, stopMillis + " ms to stop");
    }

    @Test
    void aSlowCollectorSlowsNothingEither() throws Exception {
        collector.hold();
        startProxy("sampler = 1, max-queued-spans = 2");
        // A full batch (2 spans) goes out at once, and the collector holds that export unanswered.
        try (RawHttp client = new RawHttp(proxy.port())) {
            while (collector.requests() == 0) {
                assertEquals(200, client.send("GET /first HTTP/1.1\r\nHost: example.com\r\n\r\n").read().status());
            }
        }
        // Every request now is answered while that export still waits: forwarding never waits for it.
        assertAnswersPromptly(200);
        Tracing tracing = proxy.kodiak().tracing();
        Await.await(() -> tracing.droppedSpans() > 0, "dropped spans");
        assertEquals(0, tracing.exportedSpans(), "the held export is still unanswered");
        collector.release();
        List<OtlpReceiver.Received> spans = spansAfterStop();
        assertTrue(!spans.isEmpty() && spans.size() < 200, spans.size() + " spans exported");
    }

    /**
     * {@code count} keep-alive requests, each answered within 2 s: a bound a loaded machine keeps
     * (they take about a millisecond), which a request waiting for the exporter (10 s) would break.
     */
    private void assertAnswersPromptly(int count) throws Exception {
        try (RawHttp client = new RawHttp(proxy.port())) {
            for (int i = 0; i < count; i++) {
                long one = System.nanoTime();
                RawHttp.Response response = client.send("GET /n" + i + " HTTP/1.1\r\nHost: example.com\r\n\r\n").read();
                assertEquals(200, response.status());
                long millis = (System.nanoTime() - one) / 1_000_000;
                assertTrue(millis < 2_000, "request " + i + " took " + millis + " ms");
            }
        }
    }
}
