package io.kodiak.forward;

import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import io.kodiak.support.ScriptedUpstream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.EOFException;
import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Upstream response framing, read with the same strict rules as requests (RFC 9112 §6 and §7):
 * a response whose length cannot be trusted never reaches the client as if it could, and its
 * connection is never pooled, so no later exchange reads the rest of it as its own answer.
 * Before the response has started that is a 502; once it has, the client's connection is closed
 * and the client sees a cut-off body, never extra bytes.
 */
class ResponseFramingTest {
    private static final String NEXT = "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nnext";

    private ScriptedUpstream upstream;
    private ProxyHarness proxy;

    @AfterEach
    void stop() throws IOException {
        if (proxy != null) {
            proxy.close();
        }
        if (upstream != null) {
            upstream.close();
        }
    }

    /** The first request is answered with {@code first}, every later one with {@link #NEXT}. */
    private void start(String first) throws IOException {
        upstream = new ScriptedUpstream(i -> i == 0 ? first : NEXT, false);
        proxy = ProxyHarness.forUpstream(upstream.url("/"), "");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "Transfer-Encoding: gzip",                      // close-delimited and still encoded
            "Transfer-Encoding: gzip, chunked",
            "Transfer-Encoding: chunked, chunked",
            "Transfer-Encoding: chunkedx",
            "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked",
            "Transfer-Encoding: chunked\r\nContent-Length: 2",
            "Content-Length: 2\r\nTransfer-Encoding: chunked",
            "Content-Length: 2, 2",
            "Content-Length: +2",
    })
    void aResponseWhoseLengthIsAmbiguousGets502(String framing) throws Exception {
        start("HTTP/1.1 200 OK\r\n" + framing + "\r\n\r\n2\r\nok\r\n0\r\n\r\n");
        assertAnswered502ThenNextServedOnANewConnection();
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\nHTTP/",
            "HTTP/1.1 204 No Content\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            "HTTP/1.1 205 Reset Content\r\nContent-Length: 5\r\n\r\nHTTP/",
            "HTTP/2.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
            "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
            "HTTP/1.1 2000 OK\r\nContent-Length: 2\r\n\r\nok",
            "HTTP/1.1 20 OK\r\nContent-Length: 2\r\n\r\nok",
            "http/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
            "HTTP/1.1  200 OK\r\nContent-Length: 2\r\n\r\nok",
    })
    void aResponseWithABodyWhereNoneMayBeOrAMalformedStatusLineGets502(String response) throws Exception {
        start(response);
        assertAnswered502ThenNextServedOnANewConnection();
    }

    private void assertAnswered502ThenNextServedOnANewConnection() throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            RawHttp.Response response = raw.send("GET /1 HTTP/1.1\r\nHost: a\r\n\r\n").read();
            assertEquals(502, response.status(), response.bodyText());
            assertTrue(response.bodyText().startsWith("502 upstream sent an invalid response"), response.bodyText());
            assertEquals("next", raw.send("GET /2 HTTP/1.1\r\nHost: a\r\n\r\n").read().bodyText());
        }
        assertEquals(2, upstream.connections(), "the broken response's connection was not reused");
    }

    @Test
    void chunkExtensionsFromTheUpstreamAreAcceptedAndNotRelayed() throws Exception {
        start("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2;x=y\r\nok\r\n3 ; a=\"b;c\"\r\n!!!\r\n0;z\r\nX-T: 1\r\n\r\n");
        try (RawHttp raw = new RawHttp(proxy.port())) {
            RawHttp.Response response = raw.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read();
            assertEquals(200, response.status());
            assertEquals("ok!!!", response.bodyText());
            assertEquals("next", raw.send("GET /2 HTTP/1.1\r\nHost: a\r\n\r\n").read().bodyText());
        }
        assertEquals(1, upstream.connections(), "a well-framed chunked response leaves its connection reusable");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "2\r\nokXY\r\n0\r\n\r\n",             // data longer than its size: "XY..." would be the next response
            "2\r\nok\r\nzz\r\n",                  // a size that is no number
            "2\r\nok\r\n0\r\nX-T: a\u0000\r\n\r\n",
    })
    void aChunkedResponseThatBreaksItsFramingIsCutOffAndItsConnectionClosed(String body) throws Exception {
        start("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + body);
        try (RawHttp raw = new RawHttp(proxy.port())) {
            raw.send("GET /1 HTTP/1.1\r\nHost: a\r\n\r\n");
            assertThrows(EOFException.class, raw::read, "the client sees the response end early, never a complete one");
        }
        try (RawHttp raw = new RawHttp(proxy.port())) {
            assertEquals("next", raw.send("GET /2 HTTP/1.1\r\nHost: a\r\n\r\n").read().bodyText());
        }
        assertEquals(2, upstream.connections(), "the broken response's connection was not reused");
    }

    /** Broken before any of the body was relayed: the client gets Kodiak's 502 instead of the response. */
    @ParameterizedTest
    @ValueSource(strings = {" 2\r\nok\r\n0\r\n\r\n", "2\nok\n0\n\n", "2;\u0000\r\nok\r\n0\r\n\r\n", "x\r\n"})
    void aChunkedResponseBrokenInItsFirstLineGets502(String body) throws Exception {
        start("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + body);
        assertAnswered502ThenNextServedOnANewConnection();
    }

    /**
     * Bytes after a complete response, in the same read, answer nothing: here the start of a
     * second response head. Pooled, the connection would carry that head into the next exchange,
     * another client's, where the upstream's answer completes it: that client would get a 502 for
     * bytes that were never its response (or the injected field, had Grizzly paired the head with
     * its request). So the connection is closed, and the next exchange opens its own.
     */
    @ParameterizedTest
    @ValueSource(strings = {
            "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
            "HTTP/1.1 204 No Content\r\n\r\n",
            "HTTP/1.1 304 Not Modified\r\n\r\n",
    })
    void bytesAfterACompleteResponseKeepItsConnectionOutOfThePool(String first) throws Exception {
        upstream = new ScriptedUpstream(i -> i == 0
                ? first + "HTTP/1.1 200 OK\r\nX-Injected: 1\r\n"
                : "Content-Length: 8\r\n\r\npoisoned", false);
        proxy = ProxyHarness.forUpstream(upstream.url("/"), "");
        try (RawHttp raw = new RawHttp(proxy.port())) {
            assertEquals(first.split(" ")[1], String.valueOf(raw.send("GET /1 HTTP/1.1\r\nHost: a\r\n\r\n").read().status()));
        }
        try (RawHttp raw = new RawHttp(proxy.port())) {
            RawHttp.Response second = raw.send("GET /2 HTTP/1.1\r\nHost: a\r\n\r\n").read();
            assertEquals(null, second.header("x-injected"), "another client's response carries no injected field");
            assertEquals(502, second.status(), "the second answer, alone on a new connection, has no status line");
        }
        assertEquals(2, upstream.connections());
    }

    /**
     * Grizzly reads an unsolicited 100 Continue and the final response as one head: the final
     * response's fields pass the same checks, and the 100 must be the bare form Grizzly reads.
     */
    @Test
    void aContinueAheadOfTheFinalResponseIsSkippedAndTheFinalResponseChecked() throws Exception {
        start("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
        try (RawHttp raw = new RawHttp(proxy.port())) {
            assertEquals("ok", raw.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read().bodyText());
        }
    }

    @Test
    void aFinalResponseBehindAContinueIsCheckedToo() throws Exception {
        start("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nX-Cr: a\rSet-Cookie: injected=1\r\nContent-Length: 2\r\n\r\nok");
        assertAnswered502ThenNextServedOnANewConnection();
    }

    /** A 100 Continue is an interim response like any other: it may carry fields and end its lines with LF alone. */
    @ParameterizedTest
    @ValueSource(strings = {
            "HTTP/1.1 100 Continue\r\nX-A: 1\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
            "HTTP/1.1 100 Continue\n\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
    })
    void aContinueWithFieldsOrBareLineFeedsIsSkipped(String response) throws Exception {
        start(response);
        try (RawHttp raw = new RawHttp(proxy.port())) {
            assertEquals("ok", raw.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read().bodyText());
        }
    }

    /**
     * A 100 Continue split across reads: Grizzly then drops its bytes from the front of the buffer
     * and stops. The final response behind it is still scanned from its first byte (the control
     * bytes right after the split are found), and is parsed at once, not after more bytes.
     */
    @Test
    void aContinueSplitAcrossReadsLeavesNoByteOfTheFinalResponseUnscanned() throws Exception {
        String p = ScriptedUpstream.PAUSE;
        // 25 bytes: as many as the 100 Continue's head, which is what a scan gone wrong would skip.
        start("HTTP/1.1 100 Con" + p + "tinue\r\n\r\nHTTP/1.1 200 OK\r\nX: a" + p
                + "\u0000".repeat(25) + "b\r\nContent-Length: 0\r\n\r\n");
        assertAnswered502ThenNextServedOnANewConnection();
    }

    @Test
    void aFinalResponseBehindAContinueSplitAcrossReadsIsRelayedAtOnce() throws Exception {
        start("HTTP/1.1 100 Con" + ScriptedUpstream.PAUSE + "tinue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n");
        try (RawHttp raw = new RawHttp(proxy.port())) {
            assertEquals(204, raw.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read().status());
        }
    }

    @Test
    void aChunkedCodingNamedInAnotherCaseIsChunkedHoweverTheHeadArrives() throws Exception {
        String p = ScriptedUpstream.PAUSE;
        start("HTTP/1.1 200 OK\r\nTransfer-" + p + "Encoding: Chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n");
        try (RawHttp raw = new RawHttp(proxy.port())) {
            assertEquals("ok", raw.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read().bodyText());
        }
    }

    @Test
    void aNotModifiedWithTheLengthItWouldHaveHadCarriesNoBody() throws Exception {
        start("HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\nETag: \"x\"\r\n\r\n");
        try (RawHttp raw = new RawHttp(proxy.port())) {
            RawHttp.Response response = raw.send("GET /1 HTTP/1.1\r\nHost: a\r\n\r\n").read();
            assertEquals(304, response.status());
            assertEquals("next", raw.send("GET /2 HTTP/1.1\r\nHost: a\r\n\r\n").read().bodyText());
        }
        assertEquals(1, upstream.connections());
    }

    @Test
    void aResponseSplitAcrossReadsWithTheFinalChunkAloneIsRelayedWhole() throws Exception {
        start("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r" + ScriptedUpstream.PAUSE + "\nok\r\n0"
                + ScriptedUpstream.PAUSE + "\r\n\r" + ScriptedUpstream.PAUSE + "\n");
        try (RawHttp raw = new RawHttp(proxy.port())) {
            RawHttp.Response response = raw.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read();
            assertEquals("ok", response.bodyText());
            assertEquals("next", raw.send("GET /2 HTTP/1.1\r\nHost: a\r\n\r\n").read().bodyText());
        }
        assertEquals(1, upstream.connections(), "the connection went back to the pool");
    }
}
