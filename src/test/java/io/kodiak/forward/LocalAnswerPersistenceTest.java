package io.kodiak.forward;

import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import io.kodiak.support.TestUpstream;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Whether a connection Kodiak answered in its own name stays open, and that what follows on it is
 * read as the next request only when the answered request's body was certainly skipped.
 */
class LocalAnswerPersistenceTest {

    private static ProxyHarness apiOnly(TestUpstream upstream) throws Exception {
        return ProxyHarness.start("proxy.routes = [ { prefix = \"/api/\", upstream = \"" + upstream.url("/") + "\" } ]\n");
    }

    @Test
    void aRefusedBodyIsSkippedAndTheNextRequestServed() throws Exception {
        try (TestUpstream upstream = TestUpstream.start(); ProxyHarness proxy = apiOnly(upstream);
             RawHttp raw = new RawHttp(proxy.port())) {
            RawHttp.Response refused = raw.send("POST /other HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello").read();
            assertEquals(404, refused.status());
            assertNull(refused.header("connection"));
            assertEquals(200, raw.send("GET /api/bytes/3 HTTP/1.1\r\nHost: a\r\n\r\n").read().status());
        }
    }

    /**
     * The client waits for a 100 Continue before sending its body; the answer came instead, so it
     * may never send it. Kept open, its next request would be skipped as this body: closed.
     */
    @Test
    void aRefusedRequestThatAwaitsContinueClosesTheConnection() throws Exception {
        try (TestUpstream upstream = TestUpstream.start(); ProxyHarness proxy = apiOnly(upstream);
             RawHttp raw = new RawHttp(proxy.port())) {
            RawHttp.Response refused = raw.send("POST /other HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n"
                    + "Expect: 100-continue\r\n\r\n").read();
            assertEquals(404, refused.status());
            assertEquals("close", refused.header("connection"));
            assertTrue(raw.closedByPeer());
        }
    }

    @Test
    void anHttp10ClientKeptOpenIsToldSo() throws Exception {
        try (TestUpstream upstream = TestUpstream.start(); ProxyHarness proxy = apiOnly(upstream);
             RawHttp raw = new RawHttp(proxy.port())) {
            RawHttp.Response refused = raw.send("GET /other HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").read();
            assertEquals(404, refused.status());
            assertEquals("keep-alive", refused.header("connection"));
            assertEquals(200, raw.send("GET /api/bytes/3 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").read().status());
        }
    }

    /** RFC 9112 §2.2: empty lines before a request line are ignored (a CRLF some clients send after a body). */
    @Test
    void emptyLinesBeforeARequestAreIgnored() throws Exception {
        try (TestUpstream upstream = TestUpstream.start(); ProxyHarness proxy = apiOnly(upstream);
             RawHttp raw = new RawHttp(proxy.port())) {
            assertEquals(200, raw.send("\r\n\nGET /api/bytes/3 HTTP/1.1\r\nHost: a\r\n\r\n").read().status());
            assertEquals(200, raw.send("POST /api/echo HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nok\r\n").read().status());
            assertEquals(200, raw.send("GET /api/bytes/3 HTTP/1.1\r\nHost: a\r\n\r\n").read().status());
        }
    }

    /**
     * The empty line's CR arrives with the body, its LF with the next request, in another read
     * (the answer in between makes sure of it): still an empty line, whatever the reads' split.
     */
    @Test
    void anEmptyLineSplitBetweenTwoReadsIsIgnored() throws Exception {
        try (TestUpstream upstream = TestUpstream.start(); ProxyHarness proxy = apiOnly(upstream);
             RawHttp raw = new RawHttp(proxy.port())) {
            assertEquals(200, raw.send("POST /api/echo HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nok\r").read().status());
            RawHttp.Response next = raw.send("\nGET /api/bytes/3 HTTP/1.1\r\nHost: a\r\n\r\n").read();
            assertEquals(200, next.status(), next.bodyText());
            assertEquals(3, next.body.length);
        }
    }

    /** A CR at the end of one read and anything but LF at the start of the next is a bare CR: 400. */
    @Test
    void aCrThatEndsAReadAndIsNotFollowedByLfGets400() throws Exception {
        try (TestUpstream upstream = TestUpstream.start(); ProxyHarness proxy = apiOnly(upstream);
             RawHttp raw = new RawHttp(proxy.port())) {
            assertEquals(200, raw.send("POST /api/echo HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nok\r").read().status());
            RawHttp.Response refused = raw.send("GET /api/bytes/3 HTTP/1.1\r\nHost: a\r\n\r\n").read();
            assertEquals(400, refused.status());
            assertTrue(refused.bodyText().contains("bare CR"), refused.bodyText());
            assertTrue(raw.closedByPeer());
        }
    }
}
