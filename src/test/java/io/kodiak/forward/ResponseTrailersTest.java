package io.kodiak.forward;

import io.kodiak.support.H2Client;
import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import io.kodiak.support.ScriptedUpstream;
import io.kodiak.support.TestTls;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An HTTP/1.1 upstream's chunked trailers: relayed to a client that said TE: trailers and to an h2
 * client (a trailer block), dropped for any other, and never with the fields a trailer may not
 * carry; and they never leak into the next response on the same upstream connection.
 */
class ResponseTrailersTest {
    private static final String WITH_TRAILERS = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5\r\nhello\r\n0\r\nX-Checksum: abc\r\nContent-Length: 99\r\nGrpc-Status:  0 \r\n\r\n";
    private static final String PLAIN = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nplain";
    private static ScriptedUpstream upstream;

    @BeforeAll
    static void start() throws Exception {
        // Even requests get trailers, odd ones a sized body: the second of a pair must carry none.
        upstream = new ScriptedUpstream(n -> n % 2 == 0 ? WITH_TRAILERS : PLAIN, false);
    }

    @AfterAll
    static void stop() throws Exception {
        upstream.close();
    }

    private static RawHttp.Response get(ProxyHarness proxy, boolean asksForTrailers) throws Exception {
        try (RawHttp client = new RawHttp(proxy.port())) {
            return client.send("GET /t HTTP/1.1\r\nHost: x\r\n" + (asksForTrailers ? "TE: trailers\r\n" : "") + "\r\n").read(false);
        }
    }

    /** The next request gets the upstream's answer with trailers. */
    private static void alignOnTrailers(ProxyHarness proxy) throws Exception {
        if (upstream.requests() % 2 != 0) {
            assertEquals("plain", get(proxy, false).bodyText());
        }
    }

    @Test
    void aClientThatAskedGetsTheTrailersWithoutForbiddenFields() throws Exception {
        try (ProxyHarness proxy = ProxyHarness.forUpstream(upstream.url("/"), "proxy.listener.selector-threads = 1\n")) {
            alignOnTrailers(proxy);
            RawHttp.Response first = get(proxy, true);
            assertEquals("hello", first.bodyText());
            List<String[]> trailers = first.trailers;
            assertEquals(2, trailers.size(), "Content-Length may not be a trailer");
            assertEquals("x-checksum", trailers.get(0)[0]);
            assertEquals("abc", trailers.get(0)[1]);
            assertEquals("grpc-status", trailers.get(1)[0]);
            assertEquals("0", trailers.get(1)[1]);
            RawHttp.Response second = get(proxy, true);
            assertEquals("plain", second.bodyText());
            assertTrue(second.trailers.isEmpty(), "a sized body has no trailers, whatever came before");
        }
    }

    @Test
    void aClientThatDidNotAskGetsNone() throws Exception {
        try (ProxyHarness proxy = ProxyHarness.forUpstream(upstream.url("/"), "proxy.listener.selector-threads = 1\n")) {
            alignOnTrailers(proxy);
            RawHttp.Response response = get(proxy, false);
            assertEquals("hello", response.bodyText());
            assertTrue(response.trailers.isEmpty());
        }
    }

    @Test
    void anH2ClientGetsThemAsATrailerBlock() throws Exception {
        Assumptions.assumeFalse(TestTls.ON, "H2Client speaks h2c");
        try (ProxyHarness proxy = ProxyHarness.forUpstream(upstream.url("/"), "proxy.listener.selector-threads = 1\n");
             H2Client client = H2Client.connect(proxy.port())) {
            if (upstream.requests() % 2 != 0) {
                assertEquals(200, client.response(client.request("GET", "/align", null)).status());
            }
            H2Client.Response response = client.response(client.request("GET", "/t", null));
            assertEquals("hello", response.bodyText());
            assertEquals("abc", response.headers().get("x-checksum"));
            assertEquals("0", response.headers().get("grpc-status"));
            assertNull(response.headers().get("content-length"));
            H2Client.Frame last = client.seen().get(client.seen().size() - 1);
            assertEquals(H2Client.HEADERS, last.type());
            assertFalse((last.flags() & H2Client.END_STREAM) == 0, "the trailer block ends the stream");
        }
    }

    /** An empty chunked body read in one piece with its head: its trailers are not lost for that. */
    @Test
    void theTrailersOfAnEmptyBodyReadWithItsHeadAreRelayed() throws Exception {
        try (ScriptedUpstream empty = new ScriptedUpstream(n -> "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "0\r\nGrpc-Status: 7\r\n\r\n", false);
             ProxyHarness proxy = ProxyHarness.forUpstream(empty.url("/"), "");
             RawHttp client = new RawHttp(proxy.port())) {
            RawHttp.Response response = client.send("GET /t HTTP/1.1\r\nHost: x\r\nTE: trailers\r\n\r\n").read(false);
            assertEquals(200, response.status());
            assertEquals(1, response.trailers.size());
            assertEquals("grpc-status", response.trailers.get(0)[0]);
            assertEquals("7", response.trailers.get(0)[1]);
        }
    }
}
