package io.kodiak.admin;

import io.kodiak.exchange.ExchangeObserver;
import io.kodiak.support.RawHttp;
import io.kodiak.support.TestUpstream;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static io.kodiak.support.Await.await;
import static io.kodiak.admin.PrometheusText.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The admin listener against a real proxy and upstream: /health states, /metrics content and movement. */
class AdminEndpointTest {
    private static final Pattern HEALTH_JSON = Pattern.compile(
            "\\{\"status\":\"(UP|STARTING|DRAINING)\",\"version\":\"[^\"]+\",\"uptime_seconds\":\\d+,\"in_flight\":\\d+"
            + ",\"generation\":1,\"loaded_at\":\"\\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z\"}\n");

    private static String routes(TestUpstream upstream) {
        return "proxy.routes = [ { prefix = \"/app\", upstream = \"" + upstream.url("") + "\" } ]\n";
    }


    @Test
    void healthIsUpWithVersionAndUptimeWhileServing() throws Exception {
        try (TestUpstream upstream = TestUpstream.start();
             AdminHarness proxy = AdminHarness.start(routes(upstream))) {
            HttpResponse<String> health = proxy.admin("/health");

            assertEquals(200, health.statusCode());
            assertEquals("application/json", health.headers().firstValue("content-type").orElse(""));
            assertEquals("no-store", health.headers().firstValue("cache-control").orElse(""));
            assertTrue(HEALTH_JSON.matcher(health.body()).matches(), health.body());
            assertTrue(health.body().startsWith("{\"status\":\"UP\""), health.body());
        }
    }

    @Test
    void healthIsUnavailableUntilTheProxyListens() throws Exception {
        try (TestUpstream upstream = TestUpstream.start();
             AdminHarness proxy = AdminHarness.adminOnly(routes(upstream))) {
            HttpResponse<String> health = proxy.admin("/health");

            assertEquals(503, health.statusCode());
            assertTrue(health.body().startsWith("{\"status\":\"STARTING\""), health.body());
        }
    }

    @Test
    void metricsFollowTrafficByRouteStatusAndCause() throws Exception {
        try (TestUpstream upstream = TestUpstream.start();
             AdminHarness proxy = AdminHarness.start(routes(upstream))) {
            String before = proxy.metrics();
            assertEquals(0, value(before, "kodiak_requests_total{route=\"/app\",status_class=\"2xx\"}"));
            assertEquals(0, value(before, "kodiak_errors_total{cause=\"no_route\"}"));
            assertEquals(0, value(before, "kodiak_upstream_pool_open{group=\"127.0.0.1:" + upstream.port() + "\",upstream=\"127.0.0.1:" + upstream.port() + "\"}"));

            for (int i = 0; i < 3; i++) {
                HttpResponse<String> echoed = proxy.proxyPost("/app/echo", "hello");
                assertEquals(200, echoed.statusCode());
                assertEquals("hello", echoed.body());
            }
            assertEquals(404, proxy.proxyPost("/elsewhere", "").statusCode());

            String after = proxy.metrics();
            String upstreamLabel = "{group=\"127.0.0.1:" + upstream.port() + "\",upstream=\"127.0.0.1:" + upstream.port() + "\"}";
            assertEquals(3, value(after, "kodiak_requests_total{route=\"/app\",status_class=\"2xx\"}"));
            assertEquals(1, value(after, "kodiak_requests_total{route=\"none\",status_class=\"4xx\"}"));
            assertEquals(1, value(after, "kodiak_errors_total{cause=\"no_route\"}"));
            assertEquals(15, value(after, "kodiak_request_body_bytes_total{route=\"/app\"}"));
            assertEquals(15, value(after, "kodiak_response_body_bytes_total{route=\"/app\"}"));
            assertEquals(3, value(after, "kodiak_request_duration_seconds_count{route=\"/app\"}"));
            assertTrue(value(after, "kodiak_request_duration_seconds{route=\"/app\",quantile=\"0.99\"}") > 0);
            assertEquals(3, value(after, "kodiak_upstream_duration_seconds_count{upstream=\"127.0.0.1:" + upstream.port() + "\"}"));
            assertTrue(value(after, "kodiak_upstream_duration_seconds{upstream=\"127.0.0.1:" + upstream.port()
                    + "\",quantile=\"0.5\"}") > 0);
            assertEquals(1, value(after, "kodiak_upstream_pool_open" + upstreamLabel), "one reused keep-alive connection");
            assertEquals(1, value(after, "kodiak_upstream_pool_idle" + upstreamLabel));
            assertEquals(0, value(after, "kodiak_upstream_pool_leased" + upstreamLabel));
            assertEquals(0, value(after, "kodiak_upstream_pool_pending" + upstreamLabel));
            assertEquals(1000, value(after, "kodiak_upstream_pool_max" + upstreamLabel));
            assertEquals(0, value(after, "kodiak_inflight_exchanges"));
            assertEquals(proxy.kodiak.listener().maxConnections(), value(after, "kodiak_client_connections_max"));
            assertEquals(0, value(after, "kodiak_listener_accept_paused"));
            assertEquals(0, value(after, "kodiak_listener_accept_pauses_total"));
            // The bodies went through pooled buffers, and an idle keep-alive connection holds none.
            assertEquals(0, value(after, "kodiak_buffers_in_use"));
            assertTrue(value(after, "kodiak_buffers_pooled_bytes") > 0, "the pools kept what the reads used");
            assertTrue(after.contains("# TYPE kodiak_request_duration_seconds summary"), "latency is a summary with quantiles");
            assertTrue(after.contains("jvm_memory_used_bytes{"), "JVM meters are exposed too");
            assertTrue(after.contains("process_files_open_files "), "open files, the limit a proxy meets first");
        }
    }

    /** Each failure the proxy meets for real moves its own cause, not just a status class. */
    @Test
    void errorsAreCountedByCauseFromRealFailures() throws Exception {
        int closedPort;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = probe.getLocalPort();
        }
        try (TestUpstream upstream = TestUpstream.start();
             AdminHarness proxy = AdminHarness.start(routes(upstream)
                     + "proxy.routes += { prefix = \"/down\", upstream = \"http://127.0.0.1:" + closedPort + "/\" }\n"
                     + "proxy.upstream.response-timeout = 300ms\n")) {
            String before = proxy.metrics();
            for (String cause : new String[] {"connect", "timeout", "client_abort"}) {
                assertEquals(0, value(before, "kodiak_errors_total{cause=\"" + cause + "\"}"), cause);
            }

            assertEquals(502, proxy.proxyPost("/down/x", "a").statusCode(), "refused connect");
            assertEquals(504, proxy.proxyPost("/app/hold", "b").statusCode(), "no answer within response-timeout");
            assertEquals(1, value(proxy.metrics(), "kodiak_errors_total{cause=\"connect\"}"));
            assertEquals(1, value(proxy.metrics(), "kodiak_errors_total{cause=\"timeout\"}"));

            // A client that leaves while its request waits on the upstream.
            proxy.proxyPost("/app/echo", "warm");
            try (RawHttp leaving = new RawHttp(proxy.kodiak.port())) {
                leaving.send("GET /app/hold HTTP/1.1\r\nHost: a\r\n\r\n");
                await(() -> upstream.holds() == 2, "the second held request to reach the upstream");
            }
            await(() -> {
                try {
                    return value(proxy.metrics(), "kodiak_errors_total{cause=\"client_abort\"}") == 1;
                } catch (IOException | InterruptedException e) {
                    throw new AssertionError(e);
                }
            }, "the client abort to be counted");

            String after = proxy.metrics();
            assertEquals(1, value(after, "kodiak_requests_total{route=\"/down\",status_class=\"5xx\"}"));
            assertEquals(0, value(after, "kodiak_inflight_exchanges"));
        }
    }

    @Test
    void drainingProxyReportsUnhealthyWhileItsExchangeFinishes() throws Exception {
        try (TestUpstream upstream = TestUpstream.start();
             AdminHarness proxy = AdminHarness.start(routes(upstream));
             RawHttp held = new RawHttp(proxy.kodiak.port())) {
            held.send("GET /app/hold HTTP/1.1\r\nHost: a\r\n\r\n");
            await(() -> upstream.holds() == 1, "the request to reach the upstream");
            String upstreamLabel = "{group=\"127.0.0.1:" + upstream.port() + "\",upstream=\"127.0.0.1:" + upstream.port() + "\"}";
            String busy = proxy.metrics();
            assertEquals(1, value(busy, "kodiak_inflight_exchanges"));
            assertEquals(1, value(busy, "kodiak_client_connections"), "the held client, the only one on the proxy port");
            assertEquals(1, value(busy, "kodiak_upstream_pool_leased" + upstreamLabel));

            CompletableFuture<Void> stopping = CompletableFuture.runAsync(proxy.kodiak::stop);
            await(() -> proxy.kodiak.drain().isDraining(), "the drain to start");

            HttpResponse<String> health = proxy.admin("/health");
            assertEquals(503, health.statusCode());
            assertTrue(health.body().startsWith("{\"status\":\"DRAINING\""), health.body());
            assertEquals(1, value(proxy.metrics(), "kodiak_draining"));
            assertFalse(stopping.isDone());

            upstream.release();
            assertEquals(200, held.read().status());
            stopping.get(10, TimeUnit.SECONDS);
            assertEquals(0, value(proxy.metrics(), "kodiak_inflight_exchanges"));
        }
    }

    @Test
    void onlyGetAndHeadAreServedAndUnknownPathsAreNotFound() throws Exception {
        try (TestUpstream upstream = TestUpstream.start();
             AdminHarness proxy = AdminHarness.start(routes(upstream))) {
            HttpResponse<String> post = proxy.admin("POST", "/metrics");
            assertEquals(405, post.statusCode());
            assertEquals("GET, HEAD", post.headers().firstValue("allow").orElse(""));

            HttpResponse<String> head = proxy.admin("HEAD", "/health");
            assertEquals(200, head.statusCode());
            assertEquals("", head.body());

            HttpResponse<String> unknown = proxy.admin("/nothing-here");
            assertEquals(404, unknown.statusCode());
            assertTrue(unknown.body().contains("/health"), unknown.body());

            HttpResponse<String> status = proxy.admin("/status");
            assertEquals(200, status.statusCode(), status.body());
            assertTrue(status.body().matches("\\{\"status\":\"UP\",.*\"requests\":0,\"clients\":\\{\"open\":0,\"max\":[1-9][0-9]*,\"accept_pauses\":0}}\n"),
                    status.body());
            assertEquals(405, proxy.admin("POST", "/status").statusCode());

            // TRACE as any other method: Kodiak's 405 with its Allow and no caching, not Grizzly's.
            try (java.net.Socket socket = new java.net.Socket("127.0.0.1", proxy.monitoring.port())) {
                socket.setSoTimeout(10_000);
                socket.getOutputStream().write("TRACE /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                        .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                String trace = new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.ISO_8859_1);
                assertTrue(trace.startsWith("HTTP/1.1 405"), trace);
                assertTrue(trace.contains("\r\nAllow: GET, HEAD\r\n"), trace);
                assertTrue(trace.contains("\r\nCache-Control: no-store\r\n"), trace);
                assertFalse(trace.contains("TRACE /health"), "the request is not echoed: " + trace);
            }
        }
    }

    @Test
    void disabledAdminRecordsNothingAndListensNowhere() throws Exception {
        Monitoring monitoring = new Monitoring(AdminHarness.config("proxy.admin.enabled = false"));

        assertSame(ExchangeObserver.NONE, monitoring.observer());
        assertFalse(monitoring.enabled());
        assertEquals(-1, monitoring.port());
    }

    @Test
    void adminPortInUseFailsStartBeforeTheProxyListens() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            var config = AdminHarness.config("proxy.admin.port = " + taken.getLocalPort());
            Monitoring monitoring = new Monitoring(config);
            io.kodiak.Kodiak kodiak = new io.kodiak.Kodiak(config, monitoring.observer());

            assertThrows(IOException.class, () -> monitoring.start(kodiak));
            monitoring.stop();
        }
    }

    @Test
    void upstreamsListsEachGroupsServersWithTheirStateAndMetricsAgree() throws Exception {
        // The primary: a port nothing listens on (bound, then closed), so every connect is refused.
        int deadPort;
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            deadPort = probe.getLocalPort();
        }
        String dead = "http://127.0.0.1:" + deadPort;
        try (io.kodiak.support.GroupServer b = new io.kodiak.support.GroupServer("b", "/health");
             AdminHarness proxy = AdminHarness.start("proxy.upstreams.shop { servers = [\"" + dead + "\", { url = \""
                     + b.url() + "\", backup = true }], passive { max-fails = 1, fail-timeout = 60s } }\n"
                     + "proxy.routes = [ { prefix = \"/\", upstream = \"http://shop/\" } ]")) {
            HttpResponse<String> served = proxy.proxyPost("/x", "p");
            assertEquals(200, served.statusCode(), "the POST was never sent to the dead server: the backup serves it");
            assertEquals("b", served.body());

            HttpResponse<String> upstreams = proxy.admin("/upstreams");
            assertEquals(200, upstreams.statusCode());
            com.fasterxml.jackson.databind.JsonNode shop = new com.fasterxml.jackson.databind.ObjectMapper()
                    .readTree(upstreams.body()).get("groups").get(0);
            assertEquals("shop", shop.get("name").asText());
            assertEquals(1, shop.get("retries").asInt());
            assertEquals("EJECTED", shop.get("servers").get(0).get("state").asText());
            assertEquals(1, shop.get("servers").get(0).get("failures").asInt());
            assertTrue(shop.get("servers").get(1).get("backup").asBoolean());
            assertEquals(1, shop.get("servers").get(1).get("requests").asInt());

            String metrics = proxy.metrics();
            String server = "group=\"shop\",state=\"EJECTED\",upstream=\"127.0.0.1:" + deadPort + "\"";
            assertEquals(1, value(metrics, "kodiak_upstream_server_state{" + server + "}"));
            assertEquals(1, value(metrics, "kodiak_upstream_retries_total{group=\"shop\"}"));
        }
    }
}
