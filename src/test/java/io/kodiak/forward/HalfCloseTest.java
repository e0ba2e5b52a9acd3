package io.kodiak.forward;

import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import io.kodiak.support.RecordingUpstream;
import io.kodiak.support.ScriptedUpstream;
import io.kodiak.support.TestTls;
import io.kodiak.support.TestUpstream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.Socket;
import java.util.List;

import static io.kodiak.support.Await.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A client that shuts down its sending side after its requests (shutdown(SHUT_WR); the JDK's TLS
 * 1.3 client sends its close_notify, then that): with client-half-close = "answer" what it sent
 * whole is answered and the connection then closes; by default ("abort") the request is dropped
 * as when the client leaves.
 */
class HalfCloseTest {
    private static final String ANSWER = "proxy.listener.client-half-close = answer\n";

    /** A request that only readies a TLS connection: see {@link #sendAndHalfClose}. */
    private static final String WARM_UP = "/warm-up";

    /** A connection whose client has sent {@code request} and then shut down its sending side. */
    private static RawHttp sendAndHalfClose(int port, String request) throws IOException {
        Socket socket = TestTls.connect(port);
        RawHttp raw = new RawHttp(socket);
        if (TestTls.ON) {
            // The JDK's TLS 1.3 client closes its socket when a post-handshake message (the
            // listener's session ticket) comes after its shutdownOutput: one exchange reads it first.
            raw.send("GET " + WARM_UP + " HTTP/1.1\r\nHost: a\r\n\r\n");
            raw.read();
        }
        raw.send(request);
        socket.shutdownOutput();
        return raw;
    }

    /** Under each strategy: with a worker pool the read that meets the end runs off the selector thread. */
    @ParameterizedTest
    @ValueSource(strings = {"same-thread", "worker-thread"})
    void aRequestSentWholeIsAnsweredAfterTheClientStopsSending(String ioStrategy) throws Exception {
        try (TestUpstream upstream = TestUpstream.start();
             ProxyHarness proxy = ProxyHarness.forUpstream(upstream.url("/"),
                     ANSWER + "proxy.listener.io-strategy = " + ioStrategy + "\n");
             // The upstream answers 300 ms later: the end of the client's input is read long before.
             RawHttp raw = sendAndHalfClose(proxy.port(), "GET /slow/300 HTTP/1.1\r\nHost: a\r\n\r\n")) {
            RawHttp.Response response = raw.read();
            assertEquals(200, response.status());
            assertEquals("slow ok", response.bodyText());
            assertEquals("close", response.header("connection"), "the client can send no next request");
            assertTrue(raw.closedByPeer(), "the connection closes after the answer");
        }
    }

    @Test
    void pipelinedRequestsAndABodyAreAllServedInOrder() throws Exception {
        try (TestUpstream upstream = TestUpstream.start();
             ProxyHarness proxy = ProxyHarness.forUpstream(upstream.url("/"), ANSWER);
             RawHttp raw = sendAndHalfClose(proxy.port(), "GET /bytes/10 HTTP/1.1\r\nHost: a\r\n\r\n"
                     + "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Type: text/plain\r\nContent-Length: 11\r\n\r\nhello there"
                     + "GET /bytes/30 HTTP/1.1\r\nHost: a\r\n\r\n")) {
            RawHttp.Response first = raw.read();
            assertEquals(200, first.status());
            assertEquals(10, first.body.length);
            RawHttp.Response echoed = raw.read();
            assertEquals(200, echoed.status());
            assertEquals("hello there", echoed.bodyText());
            RawHttp.Response last = raw.read();
            assertEquals(30, last.body.length);
            assertTrue(raw.closedByPeer());
        }
    }

    @Test
    void aRequestCutShortIsNeitherForwardedNorAnswered() throws Exception {
        try (RecordingUpstream upstream = new RecordingUpstream(RecordingUpstream.ECHO);
             ProxyHarness proxy = ProxyHarness.forUpstream(upstream.url("/"), ANSWER)) {
            try (RawHttp raw = sendAndHalfClose(proxy.port(), "GET /cut HTTP/1.1\r\nHost: a\r\n")) {
                assertTrue(raw.closedByPeer(), "a head that can no longer end closes the connection");
            }
            // A body cut short: the exchange ends as when the client leaves.
            try (RawHttp raw = sendAndHalfClose(proxy.port(),
                    "POST /short HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc")) {
                assertTrue(raw.closedByPeer(), "a body that can no longer end closes the connection");
            }
            // The next client is served, and the upstream saw neither cut request whole.
            try (RawHttp next = new RawHttp(TestTls.connect(proxy.port()))) {
                next.send("GET /next HTTP/1.1\r\nHost: a\r\n\r\n");
                assertEquals(200, next.read().status());
            }
            List<String> targets = upstream.received().stream().map(RecordingUpstream.Received::target)
                    .filter(target -> !target.equals(WARM_UP)).toList();
            assertEquals(List.of("/next"), targets);
        }
    }

    @Test
    void anIdleConnectionClosesWhenItsClientStopsSending() throws Exception {
        try (TestUpstream upstream = TestUpstream.start();
             // idle-timeout far beyond the socket's 20 s read timeout: only the half-close can close it.
             ProxyHarness proxy = ProxyHarness.forUpstream(upstream.url("/"), ANSWER + "proxy.listener.idle-timeout = 300s\n")) {
            Socket socket = TestTls.connect(proxy.port());
            try (RawHttp raw = new RawHttp(socket)) {
                raw.send("GET /bytes/5 HTTP/1.1\r\nHost: a\r\n\r\n");
                RawHttp.Response response = raw.read();
                assertEquals(200, response.status());
                assertEquals(null, response.header("connection"), "kept alive while the client may send more");
                socket.shutdownOutput();
                assertTrue(raw.closedByPeer());
            }
        }
    }

    @Test
    void anUpgradeAnsweredAfterTheClientStoppedSendingOpensNoTunnel() throws Exception {
        String switching = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n";
        try (ScriptedUpstream upstream = new ScriptedUpstream(i -> switching, false);
             // idle-timeout far beyond the socket's 20 s read timeout: only the rule can close it.
             ProxyHarness proxy = ProxyHarness.forUpstream(upstream.url("/"), ANSWER + "proxy.listener.idle-timeout = 300s\n");
             RawHttp raw = sendAndHalfClose(proxy.port(),
                     "GET /ws HTTP/1.1\r\nHost: a\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n")) {
            // Whatever of the 101 arrives, the connection then closes: a tunnel would wait for the upstream.
            assertTrue(raw.drainedToTheEnd(), "the connection stayed open");
        }
    }

    @Test
    void byDefaultTheRequestIsDroppedAndItsUpstreamConnectionClosed() throws Exception {
        assertDroppedWhenTheClientStopsSending("");
    }

    /**
     * A request the upstream holds unanswered; once it is there, the client shuts down its sending
     * side: only that can end the exchange before the response timeout, closing the upstream
     * connection. {@code protocols}: the TLS client's, when TLS is on (none: its defaults).
     */
    private static void assertDroppedWhenTheClientStopsSending(String settings, String... protocols) throws Exception {
        try (ScriptedUpstream upstream = new ScriptedUpstream(i -> "", false);
             ProxyHarness proxy = ProxyHarness.forUpstream(upstream.url("/"), settings + "proxy.upstream.response-timeout = 60s\n")) {
            Socket socket = TestTls.connect(proxy.port(), protocols);
            try (RawHttp raw = new RawHttp(socket)) {
                raw.send("GET /hold HTTP/1.1\r\nHost: a\r\n\r\n");
                await(() -> upstream.requests() == 1, "the request to reach the upstream");
                socket.shutdownOutput();
                assertTrue(upstream.awaitClosedByProxy(10_000), "the upstream connection was not closed");
                assertTrue(raw.closedByPeer());
            }
        }
    }

    @Test
    void aTls12CloseNotifyEndsTheExchangeWhateverTheSetting() throws Exception {
        assumeTrue(TestTls.ON, "TLS suite only");
        // TLS 1.2 has no half-close: the listener's engine answers with its own close_notify.
        assertDroppedWhenTheClientStopsSending(ANSWER, "TLSv1.2");
    }
}
