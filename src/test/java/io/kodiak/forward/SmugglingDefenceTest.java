package io.kodiak.forward;

import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import io.kodiak.support.ScriptedUpstream;
import io.kodiak.upstream.UpstreamPool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.function.IntFunction;

import static io.kodiak.support.Await.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Messages that two HTTP implementations could frame differently never cross Kodiak: a request
 * whose framing or target is ambiguous is refused before any upstream sees it, and a response
 * whose framing cannot be trusted ends in a 502 and a closed upstream connection, so no later
 * exchange reads the rest of it as its own answer.
 */
class SmugglingDefenceTest {
    private static final String OK = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

    private ScriptedUpstream upstream;
    private ProxyHarness proxy;

    private void start(IntFunction<String> script) throws Exception {
        upstream = new ScriptedUpstream(script, false);
        proxy = ProxyHarness.forUpstream(upstream.url("/"), "");
    }

    @AfterEach
    void stop() throws Exception {
        if (proxy != null) {
            proxy.close();
        }
        if (upstream != null) {
            upstream.close();
        }
    }

    private static void assertReason(RawHttp.Response response, int status, String reasonStart) {
        assertEquals(status, response.status(), response.bodyText());
        assertTrue(response.bodyText().startsWith(status + " " + reasonStart), response.bodyText());
    }

    /** Refused with {@code status}, connection closed, nothing sent upstream, and the next client served. */
    private void assertRefusedAndClosed(String request, int status, String reasonStart) throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            assertReason(raw.send(request).read(), status, reasonStart);
            assertTrue(raw.closedByPeer(), "connection closed after " + status);
        }
        assertEquals(0, upstream.requests(), "requests that reached the upstream");
        try (RawHttp raw = new RawHttp(proxy.port())) {
            assertEquals("ok", raw.send("GET /next HTTP/1.1\r\nHost: a\r\n\r\n").read().bodyText());
        }
    }

    // ------------------------------------------------------------------ requests

    @Test
    void whitespaceBeforeTheColonGets400() throws Exception {
        start(i -> OK);
        assertRefusedAndClosed("POST / HTTP/1.1\r\nHost: a\r\nContent-Length : 5\r\n\r\nhello",
                400, "malformed header field name");
    }

    @Test
    void aFieldLineWithoutColonGets400() throws Exception {
        start(i -> OK);
        assertRefusedAndClosed("POST / HTTP/1.1\r\nHost: a\r\nX-Broken\r\nContent-Length: 5\r\n\r\nhello",
                400, "malformed header field name");
    }

    @Test
    void aLastFieldLineWithoutColonGets400InsteadOfWaitingForOne() throws Exception {
        start(i -> OK);
        assertRefusedAndClosed("GET / HTTP/1.1\r\nHost: a\r\nX-Broken\r\n\r\n", 400, "malformed header field name");
    }

    @Test
    void traceWithContentGets400() throws Exception {
        start(i -> OK);
        assertRefusedAndClosed("TRACE / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello",
                400, "request content not allowed with this method");
    }

    @Test
    void traceWithoutContentIsForwarded() throws Exception {
        start(i -> OK);
        try (RawHttp raw = new RawHttp(proxy.port())) {
            assertEquals("ok", raw.send("TRACE /t HTTP/1.1\r\nHost: a\r\n\r\n").read().bodyText());
        }
        assertEquals(1, upstream.requests());
    }

    @Test
    void connectGets501() throws Exception {
        start(i -> OK);
        assertRefusedAndClosed("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n",
                501, "CONNECT and PRI are not supported");
    }

    @Test
    void twoTransferEncodingFieldsGet400() throws Exception {
        start(i -> OK);
        assertRefusedAndClosed("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n"
                + "5\r\nhello\r\n0\r\n\r\n", 400, "request Transfer-Encoding other than chunked");
    }

    @ParameterizedTest
    @ValueSource(strings = {"/a/../b", "/%2e%2E/b", "/a/..;x/b", "/a/.", "/.."})
    void dotSegmentsGet400(String path) throws Exception {
        start(i -> OK);
        assertRefusedAndClosed("GET " + path + " HTTP/1.1\r\nHost: a\r\n\r\n", 400, "request path with a . or .. segment");
    }

    @Test
    void closeAnywhereInTheConnectionListClosesAfterTheResponse() throws Exception {
        start(i -> OK);
        try (RawHttp raw = new RawHttp(proxy.port())) {
            RawHttp.Response response = raw.send("GET / HTTP/1.1\r\nHost: a\r\nConnection: x-trace, close\r\n\r\n").read();
            assertEquals("ok", response.bodyText());
            assertEquals("close", response.header("connection"));
            assertTrue(raw.closedByPeer());
        }
    }

    // ----------------------------------------------------------------- responses

    @Test
    void interimResponsesAreRelayedAndTheFinalOneFollows() throws Exception {
        // RFC 9110 §15.2: a proxy forwards 1xx to an HTTP/1.1 client. Once with the final response
        // in a later read, once in the same read as the 103.
        start(i -> "HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\nConnection: x-hop\r\nX-Hop: 1\r\n\r\n"
                + (i == 0 ? ScriptedUpstream.PAUSE : "")
                + "HTTP/1.1 200 OK\r\nContent-Length: " + (5 + i) + "\r\n\r\nfinal" + "!".repeat(i));
        try (RawHttp raw = new RawHttp(proxy.port())) {
            raw.send("GET /1 HTTP/1.1\r\nHost: a\r\n\r\n");
            RawHttp.Response hints = raw.read();
            assertEquals(103, hints.status());
            assertEquals("</s.css>; rel=preload", hints.header("link"));
            assertEquals(null, hints.header("x-hop"), "fields named by Connection stay on their hop");
            RawHttp.Response first = raw.read();
            assertEquals(200, first.status());
            assertEquals("final", first.bodyText());
            assertEquals(1, idleAfterTheExchange(), "the connection went back to the pool");
            raw.send("GET /2 HTTP/1.1\r\nHost: a\r\n\r\n");
            assertEquals(103, raw.read().status());
            RawHttp.Response second = raw.read();
            assertEquals(200, second.status());
            assertEquals("final!", second.bodyText());
        }
        assertEquals(1, upstream.connections(), "the upstream connection stays usable after an interim response");
    }

    @Test
    void interimResponsesAreNotSentToAnHttp10Client() throws Exception {
        start(i -> "HTTP/1.1 102 Processing\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfinal");
        try (RawHttp raw = new RawHttp(proxy.port())) {
            RawHttp.Response response = raw.send("GET /1 HTTP/1.0\r\n\r\n").read();
            assertEquals(200, response.status());
            assertEquals("final", response.bodyText());
        }
    }

    /**
     * A body that arrives in reads of its own (each handed on whole, not sliced) ends a response
     * like any other: the connection goes back to the pool and carries the next request.
     */
    @Test
    void aBodyInReadsOfItsOwnLeavesTheConnectionReusable() throws Exception {
        start(i -> "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n" + ScriptedUpstream.PAUSE + "hello"
                + ScriptedUpstream.PAUSE + "world");
        try (RawHttp raw = new RawHttp(proxy.port())) {
            for (int i = 0; i < 3; i++) {
                assertEquals("helloworld", raw.send("GET /" + i + " HTTP/1.1\r\nHost: a\r\n\r\n").read().bodyText());
            }
        }
        assertEquals(1, upstream.connections(), "one upstream connection carried all three");
    }

    @Test
    void conflictingContentLengthsGet502AndTheConnectionIsNotReused() throws Exception {
        start(i -> i == 0 ? "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 20\r\n\r\nok" : OK);
        try (RawHttp raw = new RawHttp(proxy.port())) {
            assertReason(raw.send("GET /1 HTTP/1.1\r\nHost: a\r\n\r\n").read(), 502, "upstream sent an invalid response");
            assertEquals("ok", raw.send("GET /2 HTTP/1.1\r\nHost: a\r\n\r\n").read().bodyText());
        }
        assertEquals(2, upstream.connections());
    }

    @Test
    void whitespaceBeforeTheColonInAResponseGets502() throws Exception {
        assertAnsweredWith502("HTTP/1.1 200 OK\r\nContent-Length : 2\r\n\r\nok");
    }

    @Test
    void aResponseFieldLineWithoutColonGets502InsteadOfWaitingForOne() throws Exception {
        assertAnsweredWith502("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Broken\r\n\r\nok");
    }

    @Test
    void unsolicitedSwitchingProtocolsGets502() throws Exception {
        assertAnsweredWith502("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n");
    }

    @Test
    void anUpstreamConnectionListingCloseIsNotPooled() throws Exception {
        // The scripted upstream keeps its side open: only Kodiak's reading of the list closes it.
        start(i -> "HTTP/1.1 200 OK\r\nConnection: Upgrade, close\r\nUpgrade: h2c\r\nContent-Length: 2\r\n\r\nok");
        try (RawHttp raw = new RawHttp(proxy.port())) {
            assertEquals("ok", raw.send("GET /1 HTTP/1.1\r\nHost: a\r\n\r\n").read().bodyText());
            assertEquals(0, idleAfterTheExchange(), "a connection whose response listed close is not pooled");
            assertEquals("ok", raw.send("GET /2 HTTP/1.1\r\nHost: a\r\n\r\n").read().bodyText());
        }
        assertEquals(2, upstream.connections());
    }

    /** The upstream answers every request with {@code answer}; the client gets Kodiak's 502 instead. */
    private void assertAnsweredWith502(String answer) throws Exception {
        start(i -> answer);
        try (RawHttp raw = new RawHttp(proxy.port())) {
            assertReason(raw.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read(), 502, "upstream sent an invalid response");
        }
    }

    /** Idle pooled connections once the exchange has handed its connection back (released or closed). */
    private int idleAfterTheExchange() throws InterruptedException {
        UpstreamPool pool = proxy.kodiak().upstreams().pools().iterator().next();
        await(() -> pool.leasedConnections() == 0, "the exchange to hand its connection back");
        return pool.idleConnections();
    }
}
