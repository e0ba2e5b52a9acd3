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
}
