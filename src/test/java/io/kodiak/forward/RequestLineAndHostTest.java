package io.kodiak.forward;

import io.kodiak.support.RawHttp;
import io.kodiak.support.RecordedProxy;
import io.kodiak.support.RecordingUpstream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The request line (RFC 9112 §3: method SP request-target SP HTTP-version, one SP each, no
 * control byte or whitespace in the target, the target's form fitting the method), the version
 * (505 for any major version but 1), the Host field (RFC 9112 §3.2: exactly one in HTTP/1.1, a
 * valid uri-host[:port]), the framing fields and the Expect field, each through a real Kodiak to an
 * upstream that records what it received.
 */
class RequestLineAndHostTest {
    private RecordedProxy proxy;

    @AfterEach
    void stop() throws IOException {
        if (proxy != null) {
            proxy.close();
        }
    }

    // -------------------------------------------------------------- request line

    @ParameterizedTest
    @ValueSource(strings = {
            "GET /a\u0001b\u007fc HTTP/1.1",   // control bytes in the target
            "GET /a\u0000 HTTP/1.1",
            "GET /a b HTTP/1.1",               // SP in the target: "b HTTP/1.1" is no version
            "GET /a\tb HTTP/1.1",
            "GET  /a HTTP/1.1",                // two spaces
            "GET /a HTTP/1.1 ",                // trailing space
            "GET /a\rHTTP/1.1",
            "GET /a http/1.1",                 // the version is case-sensitive
            "GET /a HTTP/1",
            "GET /a HTTP/1.10",
            "GET /a",                          // HTTP/0.9
            "G@T /a HTTP/1.1",                 // a method that is not a token
            "GET\t/a HTTP/1.1",
            " GET /a HTTP/1.1",
            "GET * HTTP/1.1",                  // asterisk-form is for OPTIONS only
            "OPTIONS * HTTP/1.1",              // and names no path to route (nginx refuses it too)
            "GET /a#frag HTTP/1.1",            // a fragment is never part of a request target
            "GET example.com:80 HTTP/1.1",     // authority-form is for CONNECT only
            "GET a/b HTTP/1.1",
            "GET ftp://example.com/a HTTP/1.1", // absolute-form with a scheme Kodiak does not proxy
    })
    void aMalformedRequestLineGets400(String line) throws Exception {
        proxy = RecordedProxy.start();
        proxy.assertRefused(line + "\r\nHost: a\r\n\r\n", 400, "malformed request");
    }

    @ParameterizedTest
    @ValueSource(strings = {"HTTP/2.0", "HTTP/0.9", "HTTP/3.0"})
    void aMajorVersionOtherThanOneGets505(String version) throws Exception {
        proxy = RecordedProxy.start();
        proxy.assertRefused("GET / " + version + "\r\nHost: a\r\n\r\n", 505, "HTTP version not supported");
    }

    @Test
    void aHigherMinorVersionIsServedAsHttp11() throws Exception {
        proxy = RecordedProxy.start();
        assertEquals("/v", proxy.assertForwarded("GET /v HTTP/1.2\r\nHost: a\r\n\r\n").target());
    }

    @Test
    void rawNonAsciiBytesInTheTargetGet400() throws Exception {
        proxy = RecordedProxy.start();
        proxy.assertRefused("GET /caf\u00c3\u00a9 HTTP/1.1\r\nHost: a\r\n\r\n", 400, "malformed request");
    }

    @Test
    void aPercentEncodedTargetIsForwardedAsReceived() throws Exception {
        proxy = RecordedProxy.start();
        RecordingUpstream.Received received = proxy.assertForwarded("GET /caf%C3%A9/a;b=c?q=%22x%22&r=1 HTTP/1.1\r\nHost: a\r\n\r\n");
        assertTrue(proxy.upstream().rawBytes().startsWith("GET /caf%C3%A9/a;b=c?q=%22x%22&r=1 HTTP/1.1\r\n"),
                proxy.upstream().rawBytes());
        assertEquals("GET", received.method());
    }

    /** RFC 3986 §6.2.2.2: "%61" is "a"; reserved and other encodings keep theirs ("%2F" is no "/"). */
    @Test
    void percentEncodedUnreservedCharactersAreDecodedAndNoOthers() throws Exception {
        proxy = RecordedProxy.start();
        RecordingUpstream.Received received = proxy.assertForwarded(
                "GET /%61%5A%7e%2D%2e_/x%2Fy%25z%20%C3%A9?q=%61 HTTP/1.1\r\nHost: a\r\n\r\n");
        assertEquals("/aZ~-._/x%2Fy%25z%20%C3%A9?q=%61", received.target());
    }

    @ParameterizedTest
    @ValueSource(strings = {"/a\\..\\b", "/a\"b", "/a<b>", "/a{b}", "/a`b",
            "/%%32%66", "/a%", "/a%2", "/a%zz/b"})   // a '%' not followed by two hex digits (RFC 3986 §2.1)
    void aCharacterThePathMustPercentEncodeGets400(String path) throws Exception {
        proxy = RecordedProxy.start();
        proxy.assertRefused("GET " + path + " HTTP/1.1\r\nHost: a\r\n\r\n", 400, "malformed request");
    }

    /** Browsers and curl send these raw in paths: they pass as sent. */
    @Test
    void whatBrowsersSendRawInAPathPasses() throws Exception {
        proxy = RecordedProxy.start();
        assertEquals("/a|b/[0]/^c", proxy.assertForwarded("GET /a|b/[0]/^c HTTP/1.1\r\nHost: a\r\n\r\n").target());
    }

    /** The query is no path: what clients put raw in it passes as sent. */
    @Test
    void theSameCharactersInTheQueryPassAsSent() throws Exception {
        proxy = RecordedProxy.start();
        RecordingUpstream.Received received = proxy.assertForwarded("GET /a?q={\"x\"|[1]^`\\} HTTP/1.1\r\nHost: a\r\n\r\n");
        assertEquals("/a?q={\"x\"|[1]^`\\}", received.target());
    }

    @Test
    void anAbsoluteFormTargetIsRoutedByItsPathAndItsAuthorityIsTheHost() throws Exception {
        proxy = RecordedProxy.start();
        RecordingUpstream.Received received = proxy.assertForwarded(
                "GET http://Other.Example:8080/x?q=1 HTTP/1.1\r\nHost: ignored.example\r\n\r\n");
        assertEquals("/x?q=1", received.target());
        assertEquals("Other.Example:8080", received.header("x-forwarded-host"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://user@evil.example/x", "http://a:99999/x", "https://exa%zzmple/", "http:///x", "http://?q"})
    void anAbsoluteFormTargetWithoutAValidAuthorityGets400(String target) throws Exception {
        proxy = RecordedProxy.start();
        proxy.assertRefused("GET " + target + " HTTP/1.1\r\nHost: a\r\n\r\n", 400, "missing, repeated or malformed Host");
    }

    @Test
    void nothingPipelinedAfterARefusedRequestIsForwarded() throws Exception {
        proxy = RecordedProxy.start();
        try (RawHttp raw = new RawHttp(proxy.port())) {
            raw.send("GET /1 HTTP/1.1\r\nHost: a\r\n\r\n"
                    + "GET /2\u0001 HTTP/1.1\r\nHost: a\r\n\r\n"
                    + "GET /3 HTTP/1.1\r\nHost: a\r\n\r\n");
            assertEquals("ok", raw.read().bodyText());
            assertEquals(400, raw.read().status());
            assertTrue(raw.closedByPeer());
        }
        List<RecordingUpstream.Received> received = proxy.upstream().received();
        assertEquals(1, received.size());
        assertEquals("/1", received.get(0).target());
    }

    /**
     * The refusal of a pipelined request waits for the exchange ahead of it; bytes the client
     * sends meanwhile are not parsed into the refused request, and it is answered once, whole.
     */
    @Test
    void bytesSentWhileARefusalWaitsForTheExchangeAheadAreIgnored() throws Exception {
        java.util.concurrent.CountDownLatch slowArrived = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        proxy = RecordedProxy.start(r -> {
            if (r.target().equals("/slow")) {
                slowArrived.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return RecordingUpstream.ECHO.apply(r);
        });
        try (RawHttp raw = new RawHttp(proxy.port())) {
            raw.send("GET /slow HTTP/1.1\r\nHost: a\r\n\r\n");
            assertTrue(slowArrived.await(10, java.util.concurrent.TimeUnit.SECONDS));
            raw.send("GET / HTTP/1.1\r\nHost: a\r\nX: \u0002\r\n\r\n");
            raw.send("\u0002GET /x HTTP/1.1\r\nHost: a\r\n\r\n");
            // Both sends are on the connection while /slow is still held (it is released only now). That nothing
            // was answered ahead of the first exchange is shown by order, not by a quiet moment: the first
            // answer read is /slow's, the refusal comes after it.
            release.countDown();
            assertEquals("ok", raw.read().bodyText(), "the first exchange is answered first");
            RawHttp.Response refusal = raw.read();
            assertEquals(400, refusal.status());
            assertTrue(refusal.bodyText().startsWith("400 malformed request"), refusal.bodyText());
            assertTrue(raw.closedByPeer());
        }
        assertEquals(1, proxy.upstream().received().size(), "only /slow reached the upstream");
        assertEquals(1L, proxy.errorCounts().getOrDefault("bad_request", 0L), "one refusal, counted once");
    }

    // ----------------------------------------------------------------------- Host

    @ParameterizedTest
    @ValueSource(strings = {
            "Host: a\r\nHost: b",
            "Host: a\r\nHost: a",
            "Host: exa mple.com",
            "Host: a:b",
            "Host: a:80:80",
            "Host: a:65536",
            "Host: a:0000080801",
            "Host: [::1",
            "Host: [::1]x",
            "Host: []",
            "Host: a/b",
            "Host: a@b",
            "Host: a\\b",
            "Host: a%zz",
            "Host: a%2",
            "Host: \"a\"",
            "X-Other: 1",                     // no Host in HTTP/1.1
    })
    void aMissingRepeatedOrInvalidHostGets400(String hostFields) throws Exception {
        proxy = RecordedProxy.start();
        proxy.assertRefused("GET / HTTP/1.1\r\n" + hostFields + "\r\n\r\n", 400, "missing, repeated or malformed Host");
    }

    @ParameterizedTest
    @ValueSource(strings = {"a", "A.Example.COM.", "a_b-c~d", "127.0.0.1:8080", "a:65535", "a:0080", "[::1]", "[::1]:80",
            "[::ffff:127.0.0.1]:1", "a:", "%41b", "x!$&'()*+,;=y"})
    void aValidHostIsForwarded(String host) throws Exception {
        proxy = RecordedProxy.start();
        RecordingUpstream.Received received = proxy.assertForwarded("GET / HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
        assertEquals(host, received.header("x-forwarded-host"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"Host: ", "Host:", "Host: :80"})
    void anEmptyHostGets400(String field) throws Exception {
        // An "http" URI must have a host (RFC 9110 §4.2.1); nginx refuses an empty Host too.
        proxy = RecordedProxy.start();
        proxy.assertRefused("GET / HTTP/1.1\r\n" + field + "\r\n\r\n", 400, "missing, repeated or malformed Host");
    }

    @Test
    void anHttp10RequestNeedsNoHost() throws Exception {
        proxy = RecordedProxy.start();
        try (RawHttp raw = new RawHttp(proxy.port())) {
            assertEquals("ok", raw.send("GET /old HTTP/1.0\r\n\r\n").read().bodyText());
        }
        assertEquals("/old", proxy.upstream().received().get(0).target());
    }

    // ------------------------------------------------------------------- framing

    @ParameterizedTest
    @ValueSource(strings = {"5, 5", "+5", "-5", "5 5", "0x5", "five", ""})
    void aContentLengthThatIsNotOneNumberGets400(String value) throws Exception {
        proxy = RecordedProxy.start();
        proxy.assertRefused("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: " + value + "\r\n\r\nhello", 400, "malformed");
    }

    @Test
    void differentContentLengthsGet400() throws Exception {
        proxy = RecordedProxy.start();
        proxy.assertRefused("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
                400, "request has Content-Length fields with different values");
    }

    @Test
    void repeatedEqualContentLengthsAreOneLength() throws Exception {
        proxy = RecordedProxy.start();
        RecordingUpstream.Received received = proxy.assertForwarded(
                "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 05\r\n\r\nhello");
        assertEquals("hello", received.body());
        assertEquals(1, received.count("content-length"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"chunked, chunked", "gzip, chunked", "chunked;x=1", "chunkedx", "identity"})
    void aTransferEncodingOtherThanOneChunkedCodingGets400(String value) throws Exception {
        proxy = RecordedProxy.start();
        proxy.assertRefused("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: " + value + "\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
                400, "request Transfer-Encoding other than chunked");
    }

    @Test
    void transferEncodingOnAnHttp10RequestGets400() throws Exception {
        proxy = RecordedProxy.start();
        proxy.assertRefused("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
                400, "request Transfer-Encoding other than chunked");
    }

    @Test
    void connectionOptionsCannotStripFramingOrForwardingFields() throws Exception {
        proxy = RecordedProxy.start();
        RecordingUpstream.Received received = proxy.assertForwarded("POST / HTTP/1.1\r\nHost: a\r\n"
                + "Connection: Content-Length, Host, X-Forwarded-For, X-Private\r\nX-Private: 1\r\n"
                + "X-Forwarded-For: 10.0.0.1\r\nContent-Length: 5\r\n\r\nhello");
        assertEquals("hello", received.body());
        assertEquals("5", received.header("content-length"));
        assertEquals("10.0.0.1, 127.0.0.1", received.header("x-forwarded-for"));
        assertEquals(null, received.header("x-private"), "a field the client named as hop-by-hop is removed");
    }

    /** RFC 9110 §5.3: the lines of one field name are one list; every client line goes on, in order. */
    @Test
    void everyXForwardedForLineGoesOnInOrderBeforeTheClientsAddress() throws Exception {
        proxy = RecordedProxy.start();
        RecordingUpstream.Received received = proxy.assertForwarded("GET / HTTP/1.1\r\nHost: a\r\n"
                + "X-Forwarded-For: 1.1.1.1\r\nX-A: b\r\nX-Forwarded-For: 2.2.2.2, 3.3.3.3\r\nX-Forwarded-For:\r\n\r\n");
        assertEquals("1.1.1.1, 2.2.2.2, 3.3.3.3, 127.0.0.1", received.header("x-forwarded-for"));
        assertEquals(1, received.count("x-forwarded-for"));
    }

    /**
     * RFC 9113 §3.1: the h2c upgrade is obsolete. Relayed, it would open a tunnel to the upstream past
     * every route, rule and limit (h2c smuggling): the request goes on as an ordinary one.
     */
    @ParameterizedTest
    @ValueSource(strings = {"h2c", "H2C", "websocket, h2c"})
    void anH2cUpgradeIsForwardedAsAnOrdinaryRequest(String protocols) throws Exception {
        proxy = RecordedProxy.start();
        RecordingUpstream.Received received = proxy.assertForwarded("GET / HTTP/1.1\r\nHost: a\r\n"
                + "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: " + protocols + "\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n");
        assertEquals(null, received.header("upgrade"));
        assertEquals(null, received.header("http2-settings"));
        assertTrue(received.header("connection") == null || !received.header("connection").toLowerCase().contains("upgrade"),
                received.header("connection"));
    }

    /** HTTP2-Settings belongs to one connection (RFC 7540 §3.2.1), named by Connection or not. */
    @Test
    void http2SettingsIsNeverForwarded() throws Exception {
        proxy = RecordedProxy.start();
        RecordingUpstream.Received received = proxy.assertForwarded("GET / HTTP/1.1\r\nHost: a\r\n"
                + "HTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n");
        assertEquals(null, received.header("http2-settings"));
    }

    // -------------------------------------------------------------------- Expect

    @Test
    void anUnknownExpectationGetsNoInterimResponse() throws Exception {
        proxy = RecordedProxy.start();
        try (RawHttp raw = new RawHttp(proxy.port())) {
            RawHttp.Response response = raw.send("POST / HTTP/1.1\r\nHost: a\r\nExpect: something-else\r\n"
                    + "Content-Length: 5\r\n\r\nhello").read();
            assertEquals(200, response.status(), "no 100 Continue ahead of the final answer");
            assertEquals("hello", response.bodyText());
        }
    }

    @Test
    void anHttp10ClientGetsNoContinue() throws Exception {
        proxy = RecordedProxy.start();
        try (RawHttp raw = new RawHttp(proxy.port())) {
            RawHttp.Response response = raw.send("POST / HTTP/1.0\r\nExpect: 100-continue\r\n"
                    + "Content-Length: 5\r\n\r\nhello").read();
            assertEquals(200, response.status());
            assertEquals("hello", response.bodyText());
        }
    }
}
