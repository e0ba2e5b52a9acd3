package io.kodiak.proxyprotocol;

import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import io.kodiak.support.RecordingUpstream;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;

import static io.kodiak.support.Await.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * proxy-protocol-trusted: on a PROXY listener, a connection from a peer outside the trusted
 * sources is closed at its accept, unanswered, and counted; the header it sends never becomes a
 * client address. Loopback 127.0.0.2 plays the untrusted peer.
 */
class ProxyProtocolTrustedTest {
    private static final String REQUEST = "GET /who HTTP/1.1\r\nHost: a\r\n\r\n";
    private static final String HEADER = "PROXY TCP4 203.0.113.7 192.0.2.1 51234 443\r\n";

    /** A connection to {@code port} on 127.0.0.1 from {@code source}. */
    private static Socket from(String source, int port) throws IOException {
        Socket socket = new Socket();
        socket.bind(new InetSocketAddress(InetAddress.getByName(source), 0));
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        return socket;
    }

    @Test
    void onlyTrustedPeersAreServedOthersAreClosedUnreadAndCounted() throws Exception {
        try (RecordingUpstream upstream = new RecordingUpstream(RecordingUpstream.ECHO);
             ProxyHarness proxy = ProxyHarness.forUpstream(upstream.url("/"), "proxy.listener.proxy-protocol = true\n"
                     + "proxy.listener.proxy-protocol-trusted = [\"127.0.0.1/32\", \"10.0.0.0/8\", \"::1/128\"]\n")) {
            try (RawHttp untrusted = new RawHttp(from("127.0.0.2", proxy.port()))) {
                // Closed at the accept: whatever it sends, the header included, is never read.
                assertTrue(untrusted.drainedToTheEnd(), "closed unanswered");
            }
            try (RawHttp untrusted = new RawHttp(from("127.0.0.2", proxy.port()))) {
                try {
                    untrusted.send(HEADER + REQUEST);
                } catch (IOException reset) {
                    // closed already
                }
                assertTrue(untrusted.drainedToTheEnd(), "closed unanswered");
            }
            try (RawHttp trusted = new RawHttp(from("127.0.0.1", proxy.port()))) {
                trusted.send(HEADER + REQUEST);
                assertEquals(200, trusted.read().status());
            }
            ProxyProtocolCounts counts = proxy.kodiak().listener().proxyProtocol();
            await(() -> counts.refusedCount(ProxyHeaderRefused.Reason.UNTRUSTED) == 2, "both untrusted connections counted");
            assertEquals(1, counts.acceptedCount(), "the untrusted peer's header was never read");
            assertEquals(1, upstream.received().size());
            assertEquals("203.0.113.7", upstream.received().get(0).header("x-forwarded-for"));
        }
    }

    @Test
    void anEntryInheritsTheListenersListOrSetsItsOwn() throws Exception {
        try (RecordingUpstream upstream = new RecordingUpstream(RecordingUpstream.ECHO);
             ProxyHarness proxy = ProxyHarness.forUpstream(upstream.url("/"),
                     "proxy.listener.proxy-protocol-trusted = [\"127.0.0.1\"]\n"
                             + "proxy.listeners = [ { port = 0, proxy-protocol = true },"
                             + " { port = 0, proxy-protocol = true, proxy-protocol-trusted = [\"127.0.0.2\"] },"
                             + " { port = 0, proxy-protocol = true, proxy-protocol-trusted = [] } ]\n")) {
            int inherits = proxy.kodiak().listener().port(1);
            int own = proxy.kodiak().listener().port(2);
            int everyone = proxy.kodiak().listener().port(3);
            // The main listener takes no header: the list does nothing there.
            try (RawHttp direct = new RawHttp(from("127.0.0.2", proxy.port()))) {
                direct.send(REQUEST);
                assertEquals(200, direct.read().status());
            }
            assertEquals(200, served("127.0.0.1", inherits));
            assertEquals(-1, served("127.0.0.2", inherits));
            assertEquals(-1, served("127.0.0.1", own));
            assertEquals(200, served("127.0.0.2", own));
            assertEquals(200, served("127.0.0.2", everyone));
            assertEquals(2, proxy.kodiak().listener().proxyProtocol().refusedCount(ProxyHeaderRefused.Reason.UNTRUSTED));
        }
    }

    /** The status a request from {@code source} with a header gets on {@code port}; -1 when closed unanswered. */
    private static int served(String source, int port) throws IOException {
        try (RawHttp client = new RawHttp(from(source, port))) {
            try {
                client.send(HEADER + REQUEST);
            } catch (IOException closed) {
                return -1;
            }
            try {
                return client.read().status();
            } catch (IOException closedUnanswered) {
                return -1;
            }
        }
    }

    @Test
    void aReloadChangesTheListForConnectionsAcceptedAfterIt() throws Exception {
        String base = "proxy.listener.proxy-protocol = true\n";
        try (RecordingUpstream upstream = new RecordingUpstream(RecordingUpstream.ECHO);
             ProxyHarness proxy = ProxyHarness.forUpstream(upstream.url("/"), base
                     + "proxy.listener.proxy-protocol-trusted = [\"127.0.0.1\"]\n")) {
            assertEquals(-1, served("127.0.0.2", proxy.port()));
            proxy.reload("proxy.routes = [ { prefix = \"/\", upstream = \"" + upstream.url("/") + "\" } ]\n" + base
                    + "proxy.listener.proxy-protocol-trusted = [\"127.0.0.0/8\"]\n");
            assertEquals(200, served("127.0.0.2", proxy.port()));
        }
    }
}
