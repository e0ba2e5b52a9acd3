package io.kodiak.proxyprotocol;

import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.kodiak.support.Await.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** proxy.upstream.proxy-protocol: each upstream connection opens with the header of the client it serves. */
class ProxyProtocolUpstreamTest {

    /** A server that expects a PROXY header on each connection, records it, and answers one request per connection. */
    private static final class HeaderReadingServer implements AutoCloseable {
        final ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        final List<ProxyHeader> headers = new CopyOnWriteArrayList<>();
        final List<String> failures = new CopyOnWriteArrayList<>();
        private final Thread acceptor = new Thread(this::serve, "header-reading-server");

        HeaderReadingServer() throws IOException {
            acceptor.setDaemon(true);
            acceptor.start();
        }

        String url() {
            return "http://127.0.0.1:" + socket.getLocalPort();
        }

        private void serve() {
            while (!socket.isClosed()) {
                try (Socket connection = socket.accept()) {
                    connection.setSoTimeout(10_000);
                    InputStream in = connection.getInputStream();
                    ByteArrayOutputStream seen = new ByteArrayOutputStream();
                    ProxyHeaderParser.Parsed parsed = null;
                    while (parsed == null) {
                        int b = in.read();
                        if (b < 0) {
                            break;
                        }
                        seen.write(b);
                        parsed = ProxyHeaderParser.parse(seen.toByteArray(), seen.size());
                    }
                    if (parsed == null) {
                        // A health check or a connection that ended before its header: nothing to record.
                        continue;
                    }
                    headers.add(parsed.header());
                    // The request after the header: read its head, answer, close.
                    String head = readHead(in);
                    if (!head.startsWith("GET ")) {
                        failures.add("not a request after the header: " + head);
                    }
                    connection.getOutputStream().write(
                            "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".getBytes(StandardCharsets.US_ASCII));
                    connection.getOutputStream().flush();
                } catch (ProxyHeaderRefused e) {
                    failures.add("refused header: " + e.getMessage());
                } catch (IOException closed) {
                    // the server socket closed, or a connection ended early
                }
            }
        }

        private static String readHead(InputStream in) throws IOException {
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
                int b = in.read();
                if (b < 0) {
                    break;
                }
                head.write(b);
            }
            return head.toString(StandardCharsets.ISO_8859_1);
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    @Test
    void eachConnectionNamesTheClientItServesCarriedThroughFromTheListenersOwnHeader() throws Exception {
        for (String version : new String[]{"v1", "v2"}) {
            try (HeaderReadingServer upstream = new HeaderReadingServer();
                 ProxyHarness proxy = ProxyHarness.forUpstream(upstream.url(),
                         "proxy.upstream.proxy-protocol = \"" + version + "\"\n"
                                 + "proxy.listeners = [ { port = 0, proxy-protocol = true } ]\n")) {
                int behindBalancer = proxy.kodiak().listener().port(1);
                try (RawHttp client = new RawHttp(new Socket("127.0.0.1", behindBalancer))) {
                    client.send("PROXY TCP4 203.0.113.7 192.0.2.1 51234 443\r\nGET /a HTTP/1.1\r\nHost: a\r\n\r\n");
                    assertEquals(200, client.read().status());
                    // The same client again: this server closes each connection after one answer, so a
                    // new upstream connection, with the same client's header (ProxyProtocolKeepAliveTest
                    // has a server that keeps them).
                    client.send("GET /b HTTP/1.1\r\nHost: a\r\n\r\n");
                    assertEquals(200, client.read().status());
                }
                Socket direct = new Socket("127.0.0.1", proxy.port());
                int clientPort = direct.getLocalPort();
                try (RawHttp client = new RawHttp(direct)) {
                    client.send("GET /c HTTP/1.1\r\nHost: a\r\n\r\n");
                    assertEquals(200, client.read().status());
                }
                await(() -> upstream.headers.size() == 3, "three upstream connections with their headers");
                assertEquals(List.of(), upstream.failures);
                ProxyHeader carried = new ProxyHeader(new InetSocketAddress("203.0.113.7", 51234),
                        new InetSocketAddress("192.0.2.1", 443));
                assertEquals(carried, upstream.headers.get(0), version);
                assertEquals(carried, upstream.headers.get(1), version);
                assertEquals(new ProxyHeader(new InetSocketAddress("127.0.0.1", clientPort),
                        new InetSocketAddress("127.0.0.1", proxy.port())), upstream.headers.get(2), version);
            }
        }
    }

    /** Kodiak to Kodiak over TLS: the second reads the first's header before the handshake, and the carried client reaches the end. */
    @Test
    void theHeaderPrecedesTheTlsHandshakeToAnHttpsUpstream() throws Exception {
        try (io.kodiak.support.RecordingUpstream end = new io.kodiak.support.RecordingUpstream(
                io.kodiak.support.RecordingUpstream.ECHO);
             ProxyHarness inner = ProxyHarness.forUpstream(end.url("/"),
                     "proxy.listener.proxy-protocol = true\n" + io.kodiak.support.TestTls.tlsListener());
             ProxyHarness outer = ProxyHarness.forUpstream("https://127.0.0.1:" + inner.port(),
                     "proxy.upstream.proxy-protocol = \"v2\"\n" + io.kodiak.support.TestTls.upstreamTrust()
                             + "proxy.listeners = [ { port = 0, proxy-protocol = true } ]\n")) {
            try (RawHttp client = new RawHttp(new Socket("127.0.0.1", outer.kodiak().listener().port(1)))) {
                client.send("PROXY TCP4 203.0.113.7 192.0.2.1 51234 443\r\nGET /a HTTP/1.1\r\nHost: a\r\n\r\n");
                assertEquals(200, client.read().status());
            }
            assertEquals(1, inner.kodiak().listener().proxyProtocol().acceptedCount());
            // The outer proxy's X-Forwarded-For entry, then the inner one's: the same carried client.
            assertEquals("203.0.113.7, 203.0.113.7", end.received().get(0).header("x-forwarded-for"));
        }
    }

    @Test
    void h2UpstreamsCannotCarryOneClientsHeader() {
        String message = org.junit.jupiter.api.Assertions.assertThrows(RuntimeException.class,
                () -> ProxyHarness.config("proxy.upstream.proxy-protocol = \"v2\"\nproxy.upstream.protocol = \"h2\"\n"
                        + "proxy.routes = [ { prefix = \"/\", upstream = \"http://127.0.0.1:1\" } ]\n")).getMessage();
        assertTrue(message.contains("proxy.upstream.proxy-protocol"), message);
        assertTrue(message.contains("speaks h2"), message);
        String bad = org.junit.jupiter.api.Assertions.assertThrows(RuntimeException.class,
                () -> ProxyHarness.config("proxy.upstream.proxy-protocol = \"v3\"\n"
                        + "proxy.routes = [ { prefix = \"/\", upstream = \"http://127.0.0.1:1\" } ]\n")).getMessage();
        assertTrue(bad.contains("proxy.upstream.proxy-protocol") && bad.contains("v3"), bad);
    }
}
