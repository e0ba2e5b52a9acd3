package io.kodiak.proxyprotocol;

import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import io.kodiak.support.RecordingUpstream;
import io.kodiak.support.TestTls;
import org.junit.jupiter.api.Test;

import javax.net.ssl.SSLSocket;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import static io.kodiak.support.Await.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A listener behind an L4 balancer: the client address its PROXY header carries is the one the
 * upstream hears of, a connection without a valid header is closed unanswered, and a listener
 * without the setting serves as ever.
 */
class ProxyProtocolListenerTest {
    private static final String REQUEST = "GET /who HTTP/1.1\r\nHost: a\r\n\r\n";

    private static ProxyHarness proxy(RecordingUpstream upstream, String more) throws IOException {
        return ProxyHarness.forUpstream(upstream.url("/"),
                "proxy.listener.proxy-protocol = true\n"
                        + "proxy.listeners = [ { port = 0 } ]\n" + more);
    }

    private static Socket plain(int port) throws IOException {
        return new Socket("127.0.0.1", port);
    }

    @Test
    void theCarriedAddressIsTheClientsForTheUpstreamAndTheHeaderIsTakenOff() throws Exception {
        try (RecordingUpstream upstream = new RecordingUpstream(RecordingUpstream.ECHO);
             ProxyHarness proxy = proxy(upstream, "");
             RawHttp client = new RawHttp(plain(proxy.port()))) {
            client.send("PROXY TCP4 203.0.113.7 192.0.2.1 51234 443\r\n" + REQUEST);
            assertEquals(200, client.read().status());
            // A second request on the same connection: the header was the connection's, read once.
            client.send(REQUEST);
            assertEquals(200, client.read().status());
            assertEquals(2, upstream.received().size());
            for (RecordingUpstream.Received received : upstream.received()) {
                assertEquals("/who", received.target());
                assertEquals("203.0.113.7", received.header("x-forwarded-for"));
            }
            assertEquals(1, proxy.kodiak().listener().proxyProtocol().acceptedCount());
        }
    }

    @Test
    void aV2HeaderSplitAcrossReadsAndItsLocalFormKeepTheSocketsAddress() throws Exception {
        try (RecordingUpstream upstream = new RecordingUpstream(RecordingUpstream.ECHO);
             ProxyHarness proxy = proxy(upstream, "")) {
            byte[] header = ProxyHeaderParserTest.v2(0x21, 0x11, ProxyHeaderParserTest.ipv4Body(), new byte[]{0x04, 0x00, 0x01, 0});
            try (RawHttp client = new RawHttp(plain(proxy.port()))) {
                client.send(java.util.Arrays.copyOf(header, 7));
                // The split happened: the proxy read the header's first piece alone and holds it.
                ProxyProtocolCounts counts = proxy.kodiak().listener().proxyProtocol();
                await(() -> counts.piecedCount() == 1, "the header's first piece to be read and held");
                assertEquals(0, counts.acceptedCount());
                client.send(java.util.Arrays.copyOfRange(header, 7, header.length));
                client.send(REQUEST);
                assertEquals(200, client.read().status());
            }
            try (RawHttp client = new RawHttp(plain(proxy.port()))) {
                client.send(ProxyHeaderParserTest.v2(0x20, 0x00, new byte[0], new byte[0]));
                client.send(REQUEST);
                assertEquals(200, client.read().status());
            }
            assertEquals("203.0.113.7", upstream.received().get(0).header("x-forwarded-for"));
            assertEquals("127.0.0.1", upstream.received().get(1).header("x-forwarded-for"), "LOCAL: the socket's peer");
        }
    }

    @Test
    void noHeaderOrABadOneClosesUnansweredAndIsCountedAndTheNextClientIsServed() throws Exception {
        try (RecordingUpstream upstream = new RecordingUpstream(RecordingUpstream.ECHO);
             ProxyHarness proxy = proxy(upstream, "")) {
            String[] openings = {REQUEST, "PROXY TCP4 203.0.113.7 192.0.2.1 51234\r\n" + REQUEST,
                    "PROXY UNKNOWN " + "x".repeat(120) + "\r\n" + REQUEST};
            for (String opening : openings) {
                try (RawHttp client = new RawHttp(plain(proxy.port()))) {
                    client.send(opening);
                    assertTrue(client.drainedToTheEnd(), opening);
                }
            }
            try (RawHttp client = new RawHttp(plain(proxy.port()))) {
                client.send("PROXY TCP6 2001:db8::7 2001:db8::1 40000 443\r\n" + REQUEST);
                assertEquals(200, client.read().status());
            }
            ProxyProtocolCounts counts = proxy.kodiak().listener().proxyProtocol();
            assertEquals(1, counts.refusedCount(ProxyHeaderRefused.Reason.MISSING));
            assertEquals(1, counts.refusedCount(ProxyHeaderRefused.Reason.MALFORMED));
            assertEquals(1, counts.refusedCount(ProxyHeaderRefused.Reason.OVERSIZED));
            assertEquals(1, upstream.received().size(), "only the valid header's request went upstream");
            assertEquals("2001:db8:0:0:0:0:0:7", upstream.received().get(0).header("x-forwarded-for"));
        }
    }

    @Test
    void aListenerWithoutTheSettingServesAsEverAndTakesAHeaderForARequest() throws Exception {
        try (RecordingUpstream upstream = new RecordingUpstream(RecordingUpstream.ECHO);
             ProxyHarness proxy = proxy(upstream, "")) {
            int direct = proxy.kodiak().listener().port(1);
            try (RawHttp client = new RawHttp(plain(direct))) {
                client.send(REQUEST);
                assertEquals(200, client.read().status());
            }
            try (RawHttp client = new RawHttp(plain(direct))) {
                // Nobody can claim an address on a port that does not expect the header.
                client.send("PROXY TCP4 203.0.113.7 192.0.2.1 51234 443\r\n" + REQUEST);
                assertEquals(400, client.read().status());
            }
            assertEquals("127.0.0.1", upstream.received().get(0).header("x-forwarded-for"));
        }
    }

    @Test
    void theHeaderComesBeforeTheTlsHandshake() throws Exception {
        try (RecordingUpstream upstream = new RecordingUpstream(RecordingUpstream.ECHO);
             ProxyHarness proxy = ProxyHarness.forUpstream(upstream.url("/"),
                     "proxy.listener.proxy-protocol = true\n" + TestTls.tlsListener())) {
            Socket socket = plain(proxy.port());
            socket.getOutputStream().write("PROXY TCP4 198.51.100.9 192.0.2.1 4000 443\r\n".getBytes(StandardCharsets.US_ASCII));
            SSLSocket tls = (SSLSocket) TestTls.trustingClientContext().getSocketFactory()
                    .createSocket(socket, "localhost", proxy.port(), true);
            tls.startHandshake();
            try (RawHttp client = new RawHttp(tls)) {
                client.send(REQUEST);
                assertEquals(200, client.read().status());
            }
            await(() -> upstream.received().size() == 1, "the request upstream");
            assertEquals("198.51.100.9", upstream.received().get(0).header("x-forwarded-for"));
        }
    }
}
