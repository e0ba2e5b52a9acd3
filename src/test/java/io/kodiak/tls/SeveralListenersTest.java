package io.kodiak.tls;

import io.kodiak.support.AccessLogLines;
import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import io.kodiak.support.RecordingUpstream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLSocket;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** proxy.listeners: one instance serving plain HTTP and HTTPS side by side, with one connection limit. */
class SeveralListenersTest {
    @TempDir
    Path dir;
    private TestCertificates certs;
    private TestCertificates.Issued leaf;
    private RecordingUpstream upstream;
    private ProxyHarness proxy;

    @BeforeEach
    void setUp() throws Exception {
        certs = new TestCertificates(dir);
        leaf = certs.leaf("leaf", Duration.ofDays(90), "localhost");
        upstream = new RecordingUpstream(RecordingUpstream.ECHO);
    }

    @AfterEach
    void tearDown() throws IOException {
        if (proxy != null) {
            proxy.close();
        }
        upstream.close();
    }

    private String httpsListener() {
        return "proxy.listeners = [ { port = 0, tls { certificate = \"" + leaf.certificateFile() + "\", key = \""
                + leaf.keyFile() + "\" } } ]\n";
    }

    private SSLSocket tlsClient(int port) throws Exception {
        SSLSocket socket = (SSLSocket) certs.clientContext(null).getSocketFactory()
                .createSocket(InetAddress.getLoopbackAddress(), port);
        socket.setSoTimeout(10_000);
        socket.startHandshake();
        return socket;
    }

    private static String exchange(SSLSocket socket, String request) throws IOException {
        return TlsTalk.exchange(socket, request);
    }

    @Test
    void plainAndTlsListenersForwardWithTheirOwnScheme() throws Exception {
        proxy = ProxyHarness.forUpstream(upstream.url("/"), httpsListener());
        int plain = proxy.kodiak().listener().port(0);
        int https = proxy.kodiak().listener().port(1);
        try (RawHttp raw = new RawHttp(plain)) {
            raw.send("GET /plain HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
            assertEquals(200, raw.read().status());
        }
        try (SSLSocket socket = tlsClient(https)) {
            String response = exchange(socket, "GET /secure HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
            assertTrue(response.startsWith("HTTP/1.1 200 "), response);
        }
        assertEquals("/plain", upstream.received().get(0).target());
        assertEquals("http", upstream.received().get(0).header("X-Forwarded-Proto"));
        assertEquals("/secure", upstream.received().get(1).target());
        assertEquals("https", upstream.received().get(1).header("X-Forwarded-Proto"));
        // The TLS listener speaks only TLS: plain bytes there get no HTTP answer.
        try (RawHttp raw = new RawHttp(https)) {
            raw.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
            assertTrue(raw.closedByPeer(), "a plain request on the TLS listener is not served");
        }
        assertEquals(2, upstream.received().size());
    }

    @Test
    void theConnectionLimitCountsEveryListenerAndPausesThemAll() throws Exception {
        proxy = ProxyHarness.forUpstream(upstream.url("/"), httpsListener() + "proxy.listener.max-connections = 2\n");
        int https = proxy.kodiak().listener().port(1);
        java.util.concurrent.ExecutorService background = java.util.concurrent.Executors.newSingleThreadExecutor();
        try (SSLSocket secure = tlsClient(https)) {
            java.util.concurrent.Future<String> third;
            try (RawHttp plain = new RawHttp(proxy.kodiak().listener().port(0))) {
                plain.send("GET /a HTTP/1.1\r\nHost: a\r\n\r\n");
                assertEquals(200, plain.read().status());
                assertEquals(2, proxy.kodiak().listener().openConnections());
                assertTrue(proxy.kodiak().listener().acceptPaused(), "the listeners pause at the shared limit");
                // A third client, on the TLS listener (the first attached), waits in the listen
                // queue: its handshake gets no answer while the limit holds. Its TCP connection is made
                // here, so it is in that queue before the plain connection closes; the handshake waits apart.
                java.net.Socket tcp = new java.net.Socket(InetAddress.getLoopbackAddress(), https);
                third = background.submit(() -> {
                    try (SSLSocket late = (SSLSocket) certs.clientContext(null).getSocketFactory()
                            .createSocket(tcp, "127.0.0.1", https, true)) {
                        late.setSoTimeout(30_000);
                        late.startHandshake();
                        return exchange(late, "GET /third HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
                    }
                });
                assertEquals(2, proxy.kodiak().listener().openConnections(), "the third client is not taken");
                assertEquals(1, proxy.kodiak().listener().acceptPauses());
            }
            // One connection closed (the plain one): every listener accepts again.
            String response = third.get(60, java.util.concurrent.TimeUnit.SECONDS);
            assertTrue(response.startsWith("HTTP/1.1 200 "), response);
            // The ordering, by a count instead of a quiet moment: a pause happens only where the count of open
            // connections reaches the limit from below. A second one means the plain connection's close took the
            // count to 1 before the third client was accepted on the TLS listener; accepted while the limit held,
            // it would have made the count 3, the close would have left 2, and there would be one pause only.
            assertEquals(2, proxy.kodiak().listener().acceptPauses(), "the third client was accepted only after a close");
        } finally {
            background.shutdownNow();
        }
    }

    @Test
    void anAddressThatCannotBeBoundIsNamedAndTheOthersAreReleased() throws Exception {
        int free;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            free = probe.getLocalPort();
        }
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            // Bound from the last to the first: listeners[1] is bound when listeners[0] fails.
            IOException e = assertThrows(IOException.class, () -> ProxyHarness.forUpstream(upstream.url("/"),
                    "proxy.listeners = [ { port = " + taken.getLocalPort() + " }, { port = " + free + " } ]\n"));
            assertTrue(e.getMessage().startsWith("proxy.listeners[0] 127.0.0.1:" + taken.getLocalPort()), e.getMessage());
        }
        try (ServerSocket again = new ServerSocket()) {
            again.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), free));
            assertTrue(again.isBound(), "listeners[1]'s address was released");
        }
    }

    @Test
    void theAccessLogRecordsTheTlsProtocol() throws Exception {
        List<String> messages;
        try (AccessLogLines lines = new AccessLogLines()) {
            proxy = ProxyHarness.forUpstream(upstream.url("/"), httpsListener());
            try (SSLSocket socket = tlsClient(proxy.kodiak().listener().port(1))) {
                exchange(socket, "GET /logged HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
            }
            try (RawHttp raw = new RawHttp(proxy.kodiak().listener().port(0))) {
                raw.send("GET /plain HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
                raw.read();
            }
            // A refusal on the TLS listener (no exchange) says the protocol too.
            try (SSLSocket socket = tlsClient(proxy.kodiak().listener().port(1))) {
                exchange(socket, "GET /x HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n");
            }
            proxy.close();
            proxy = null;
            messages = lines.lines();
        }
        assertEquals(3, messages.size(), messages.toString());
        // By request, not by position: a line is written once its response is out, so a client that
        // reads its answer and sends the next request on another connection (another event loop)
        // may see that one logged first.
        String logged = lineWith(messages, "\"GET /logged\" 200 ");
        String plain = lineWith(messages, "\"GET /plain\" 200 ");
        String refused = lineWith(messages, " 400 ");
        assertTrue(logged.endsWith(" TLSv1.3"), logged);
        assertTrue(plain.endsWith(" -"), plain);
        assertTrue(refused.endsWith(" TLSv1.3"), refused);
    }

    private static String lineWith(List<String> lines, String part) {
        List<String> found = lines.stream().filter(line -> line.contains(part)).toList();
        assertEquals(1, found.size(), part + " in " + lines);
        return found.get(0);
    }
}
