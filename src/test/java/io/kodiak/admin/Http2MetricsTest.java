package io.kodiak.admin;

import io.kodiak.support.H2Client;
import io.kodiak.support.TestUpstream;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static io.kodiak.admin.PrometheusText.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** /metrics counts HTTP/2 streams open, resets by side and code, and GOAWAYs both ways. */
class Http2MetricsTest {
    @Test
    void streamsResetsAndGoAwaysAreCounted() throws Exception {
        try (TestUpstream upstream = TestUpstream.start();
             AdminHarness proxy = AdminHarness.start("proxy.routes = [ { prefix = \"/\", upstream = \""
                     + upstream.url("/") + "\" } ]\n")) {
            try (H2Client client = H2Client.connect(proxy.kodiak.port())) {
                int held = client.request("GET", "/hold", null);
                io.kodiak.support.Await.await(() -> upstream.holds() == 1, "the request to reach the upstream");
                String during = proxy.metrics();
                assertEquals(1, value(during, "kodiak_http2_streams_open"), during);
                client.frame(H2Client.RST_STREAM, 0, held, ByteBuffer.allocate(4).putInt(0x8).array());
                int malformed = client.headers(H2Client.literalBlock(":method", "GET", ":scheme", "http",
                        ":path", "/a", ":authority", "x", "connection", "close"), true);
                assertEquals(0x1, client.response(malformed).reset());
                client.frame(H2Client.GOAWAY, 0, 0, ByteBuffer.allocate(8).putInt(0).putInt(0).array());
                assertTrue(client.closedByServer());
            } finally {
                upstream.release();
            }
            String after = proxy.metrics();
            assertEquals(0, value(after, "kodiak_http2_streams_open"), after);
            assertEquals(1, value(after, "kodiak_http2_resets_total{by=\"client\",code=\"CANCEL\"}"), after);
            assertEquals(1, value(after, "kodiak_http2_resets_total{by=\"kodiak\",code=\"PROTOCOL_ERROR\"}"), after);
            assertEquals(1, value(after, "kodiak_http2_goaways_total{code=\"NO_ERROR\",direction=\"received\"}"), after);
        }
    }

    @Test
    void h2UpstreamConnectionsResetsAndGoAwaysAreCounted() throws Exception {
        try (io.kodiak.support.H2Server upstream = io.kodiak.support.H2Server.start();
             AdminHarness proxy = AdminHarness.start("proxy.listener.selector-threads = 1\n"
                     + "proxy.upstreams { g { protocol = \"h2\", servers = [ \"" + upstream.url() + "\" ], retry { attempts = 1 } } }\n"
                     + "proxy.routes = [ { prefix = \"/\", upstream = \"http://g/\" } ]\n")) {
            java.util.concurrent.CompletableFuture<Integer> answer = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try (io.kodiak.support.RawHttp client = new io.kodiak.support.RawHttp(proxy.kodiak.port())) {
                    return client.send("GET /x HTTP/1.1\r\nHost: x\r\n\r\n").read(false).status();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            io.kodiak.support.H2Server.Conn conn = upstream.accept();
            io.kodiak.support.H2Server.Request request = conn.request();
            String during = proxy.metrics();
            assertEquals(1, value(during, "kodiak_http2_upstream_connections"), during);
            assertEquals(1, value(during, "kodiak_upstream_pool_h2{group=\"g\",upstream=\"127.0.0.1:" + upstream.port() + "\"}"), during);
            conn.reset(request.stream(), 0x2);
            assertEquals(502, answer.get(10, java.util.concurrent.TimeUnit.SECONDS));
            conn.goAway(request.stream(), 0x0);
            assertTrue(conn.closedByPeer(), "an idle connection that went away closes");
            io.kodiak.support.Await.await(() -> {
                try {
                    return value(proxy.metrics(), "kodiak_http2_upstream_connections") == 0;
                } catch (Exception e) {
                    return false;
                }
            }, "the connection to be counted closed");
            String after = proxy.metrics();
            assertEquals(1, value(after, "kodiak_http2_upstream_resets_total{code=\"INTERNAL_ERROR\"}"), after);
            assertEquals(1, value(after, "kodiak_http2_upstream_goaways_total{code=\"NO_ERROR\"}"), after);
        }
    }
}
