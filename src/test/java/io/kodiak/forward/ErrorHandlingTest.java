package io.kodiak.forward;

import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import io.kodiak.support.ScriptedUpstream;
import io.kodiak.support.TestUpstream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.ServerSocket;

import static io.kodiak.support.Await.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every failure is a precise answer with a one-line reason, never a hang or a stack trace; the
 * connection closes where the request's framing can no longer be trusted; the next client is
 * served normally.
 */
class ErrorHandlingTest {
    private static TestUpstream upstream;
    private ProxyHarness proxy;

    @BeforeAll
    static void startUpstream() throws Exception {
        upstream = TestUpstream.start();
    }

    @AfterAll
    static void stopUpstream() {
        upstream.close();
    }

    @AfterEach
    void stopProxy() {
        if (proxy != null) {
            proxy.close();
        }
    }

    private RawHttp.Response exchange(String request) throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            return raw.send(request).read();
        }
    }

    private void assertNextClientServed() throws Exception {
        RawHttp.Response ok = exchange("GET /bytes/5 HTTP/1.1\r\nHost: a\r\n\r\n");
        assertEquals(200, ok.status());
        assertEquals(5, ok.body.length);
    }

    private static void assertReason(RawHttp.Response response, int status, String reasonStart) {
        assertEquals(status, response.status(), response.bodyText());
        assertTrue(response.bodyText().startsWith(status + " " + reasonStart), response.bodyText());
        assertTrue(response.header("content-type").startsWith("text/plain"));
    }

    @Test
    void slowUpstreamGets504WithinTheResponseTimeout() throws Exception {
        // The upstream never answers until released: a 504 that arrives at all was the response timeout's.
        try (TestUpstream holding = TestUpstream.start()) {
            proxy = ProxyHarness.forUpstream(holding.url("/"), "proxy.upstream.response-timeout = 300ms");
            RawHttp.Response response = exchange("GET /hold HTTP/1.1\r\nHost: a\r\n\r\n");
            assertReason(response, 504, "upstream did not answer");
            assertEquals(1, holding.holds(), "the request reached the upstream, which was still holding it");
            assertNextClientServed();
        }
    }

    @Test
    void clientThatStopsSendingItsBodyGets408AndTheConnectionCloses() throws Exception {
        proxy = ProxyHarness.forUpstream(upstream.url("/"), "proxy.listener.idle-timeout = 1s");
        // No upper bound on the time: the status and reason name the idle timeout as what ended the stall, and
        // RawHttp's socket timeout fails the test if nothing does.
        try (RawHttp raw = new RawHttp(proxy.port())) {
            RawHttp.Response response = raw.send("POST /digest HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabcde").read();
            assertReason(response, 408, "request body stalled longer than idle-timeout");
            assertTrue(raw.closedByPeer());
        }
        assertNextClientServed();
    }

    @Test
    void upstreamThatStopsMidBodyHasItsClientConnectionClosed() throws Exception {
        try (ScriptedUpstream stalling = new ScriptedUpstream(i -> "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nhalf", false)) {
            proxy = ProxyHarness.forUpstream(stalling.url("/"), "proxy.listener.idle-timeout = 1s");
            try (RawHttp raw = new RawHttp(proxy.port())) {
                raw.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
                // The stalled upstream keeps its side open: the end of the stream can only be the proxy's timeout.
                java.io.EOFException truncated = org.junit.jupiter.api.Assertions.assertThrows(java.io.EOFException.class, raw::read);
                assertTrue(truncated.getMessage().contains("4 of 100"), truncated.getMessage());
            }
            assertTrue(stalling.awaitClosedByProxy(60_000), "the stalled upstream connection must be closed, not pooled");
        }
    }

    @Test
    void closedPortGets502() throws Exception {
        int closedPort;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = probe.getLocalPort();
        }
        proxy = ProxyHarness.forUpstream(io.kodiak.support.TestTls.scheme() + "://127.0.0.1:" + closedPort + "/", "");
        assertReason(exchange("GET / HTTP/1.1\r\nHost: a\r\n\r\n"), 502, "cannot connect to upstream");
    }

    @Test
    void upstreamClosingWithoutAnAnswerGets502() throws Exception {
        try (ScriptedUpstream silent = new ScriptedUpstream(i -> null, false)) {
            proxy = ProxyHarness.forUpstream(silent.url("/"), "");
            assertReason(exchange("GET / HTTP/1.1\r\nHost: a\r\n\r\n"), 502, "upstream closed the connection");
        }
    }

    @Test
    void malformedUpstreamResponseGets502() throws Exception {
        try (ScriptedUpstream broken = new ScriptedUpstream(i -> "HTTP/1.1 2x0 What\r\n\r\n", true)) {
            proxy = ProxyHarness.forUpstream(broken.url("/"), "");
            assertEquals(502, exchange("GET / HTTP/1.1\r\nHost: a\r\n\r\n").status());
        }
    }

    @Test
    void exhaustedPoolGets503AfterTheConnectTimeout() throws Exception {
        // The only connection stays busy until the test releases it, not for a few seconds that a slow
        // machine could use up before the second request is refused.
        try (TestUpstream holding = TestUpstream.start()) {
            proxy = ProxyHarness.forUpstream(holding.url("/"),
                    "proxy.upstream.max-connections = 1\nproxy.upstream.connect-timeout = 300ms");
            try (RawHttp holder = new RawHttp(proxy.port())) {
                holder.send("GET /hold HTTP/1.1\r\nHost: a\r\n\r\n");
                await(() -> holding.holds() == 1, "the only upstream connection to be in use");
                assertReason(exchange("GET /bytes/1 HTTP/1.1\r\nHost: a\r\n\r\n"), 503, "no upstream connection free");
                holding.release();
                assertEquals("held ok", holder.read().bodyText());
            }
        }
    }

    @Test
    void malformedRequestLineGets400AndTheConnectionCloses() throws Exception {
        proxy = ProxyHarness.forUpstream(upstream.url("/"), "");
        try (RawHttp raw = new RawHttp(proxy.port())) {
            RawHttp.Response response = raw.send("THIS IS NOT HTTP\r\n\r\n").read();
            assertReason(response, 400, "malformed request");
            assertTrue(raw.closedByPeer());
        }
        assertNextClientServed();
    }

    @Test
    void contentLengthWithTransferEncodingGets400() throws Exception {
        proxy = ProxyHarness.forUpstream(upstream.url("/"), "");
        try (RawHttp raw = new RawHttp(proxy.port())) {
            RawHttp.Response response = raw.send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n").read();
            assertReason(response, 400, "request has both Content-Length and Transfer-Encoding");
            assertTrue(raw.closedByPeer());
        }
        assertNextClientServed();
    }

    @Test
    void unknownTransferEncodingGets400() throws Exception {
        proxy = ProxyHarness.forUpstream(upstream.url("/"), "");
        assertReason(exchange("POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n"), 400,
                "request Transfer-Encoding other than chunked");
    }

    @Test
    void invalidChunkSizeGets400AndTheConnectionCloses() throws Exception {
        proxy = ProxyHarness.forUpstream(upstream.url("/"), "");
        try (RawHttp raw = new RawHttp(proxy.port())) {
            RawHttp.Response response = raw.send("POST /digest HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "zz\r\nhello\r\n0\r\n\r\n").read();
            assertReason(response, 400, "malformed request body");
            assertTrue(raw.closedByPeer());
        }
        assertNextClientServed();
    }

    @Test
    void declaredBodyOverTheLimitGets413WithoutReachingTheUpstream() throws Exception {
        try (ScriptedUpstream never = new ScriptedUpstream(i -> "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", false)) {
            proxy = ProxyHarness.forUpstream(never.url("/"), "proxy.listener.max-body-size = 1k");
            try (RawHttp raw = new RawHttp(proxy.port())) {
                RawHttp.Response response = raw.send("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2000\r\n\r\n").read();
                assertReason(response, 413, "request body larger than max-body-size");
                assertTrue(raw.closedByPeer());
            }
            assertEquals(0, never.requests());
        }
    }

    @Test
    void chunkedBodyGrowingOverTheLimitGets413() throws Exception {
        proxy = ProxyHarness.forUpstream(upstream.url("/"), "proxy.listener.max-body-size = 1k");
        try (RawHttp raw = new RawHttp(proxy.port())) {
            String chunk = "400\r\n" + "x".repeat(1024) + "\r\n";
            RawHttp.Response response = raw.send("POST /digest HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + chunk + chunk + "0\r\n\r\n").read();
            assertReason(response, 413, "request body larger than max-body-size");
        }
        assertNextClientServed();
    }

    @Test
    void headersOverTheLimitGet431AndTheConnectionCloses() throws Exception {
        proxy = ProxyHarness.forUpstream(upstream.url("/"), "proxy.listener.max-header-size = 1k");
        try (RawHttp raw = new RawHttp(proxy.port())) {
            RawHttp.Response response = raw.send("GET / HTTP/1.1\r\nHost: a\r\nX-Big: " + "b".repeat(2048) + "\r\n\r\n").read();
            assertReason(response, 431, "request headers larger than max-header-size");
            assertTrue(raw.closedByPeer());
        }
        assertNextClientServed();
    }

    @Test
    void drainingProxyRefusesNewRequestsWith503() throws Exception {
        proxy = ProxyHarness.forUpstream(upstream.url("/"), "");
        try (RawHttp raw = new RawHttp(proxy.port())) {
            raw.send("GET /bytes/1 HTTP/1.1\r\nHost: a\r\n\r\n");
            assertEquals(200, raw.read().status());
            proxy.kodiak().drain().start(() -> { });
            assertReason(raw.send("GET /bytes/1 HTTP/1.1\r\nHost: a\r\n\r\n").read(), 503, "proxy is shutting down");
        }
    }
}
