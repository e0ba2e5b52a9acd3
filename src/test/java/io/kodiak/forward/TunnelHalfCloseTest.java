package io.kodiak.forward;

import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import io.kodiak.support.TestTls;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A tunnel (after a 101) whose one side shuts down its sending side and goes on reading: the
 * half-close reaches the other side as the end of its input, and bytes still go the other way
 * until that side closes too. The upstream is a raw socket in the test's own hands (TLS over it in
 * the TLS run, where each half-close is TLS 1.3's: a close_notify, then the end of the TCP stream).
 */
class TunnelHalfCloseTest {
    /** The client's half-close reaches Kodiak's client side only on a listener that answers half-closed clients. */
    private static final String ANSWER = "proxy.listener.client-half-close = answer\n";
    private static final String UPGRADE = "GET /tunnel HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n";
    private static final String SWITCHING = "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n";

    @Test
    void theClientsHalfCloseReachesTheUpstreamWhoseBytesStillReachTheClient() throws Exception {
        try (ServerSocket server = TestTls.listen(1);
             ProxyHarness proxy = ProxyHarness.forUpstream(TestTls.scheme() + "://127.0.0.1:" + server.getLocalPort() + "/", ANSWER)) {
            Socket clientSocket = TestTls.connect(proxy.port());
            try (RawHttp client = new RawHttp(clientSocket);
                 Socket upstream = open(server, client)) {
                clientSocket.shutdownOutput();
                assertEquals(-1, upstream.getInputStream().read(), "the upstream's input ended");
                send(upstream, "still here");
                assertEquals("still here", new String(client.readBytes(10), StandardCharsets.US_ASCII));
                upstream.close();
                assertTrue(client.closedByPeer(), "the tunnel ended with the upstream's close");
            }
        }
    }

    @Test
    void theUpstreamsHalfCloseReachesTheClientWhoseBytesStillReachTheUpstream() throws Exception {
        try (ServerSocket server = TestTls.listen(1);
             ProxyHarness proxy = ProxyHarness.forUpstream(TestTls.scheme() + "://127.0.0.1:" + server.getLocalPort() + "/", "");
             RawHttp client = new RawHttp(proxy.port());
             Socket upstream = open(server, client)) {
            upstream.shutdownOutput();
            assertTrue(client.closedByPeer(), "the client's input ended");
            client.send("still here");
            InputStream in = upstream.getInputStream();
            assertEquals("still here", new String(in.readNBytes(10), StandardCharsets.US_ASCII));
            client.close();
            upstream.setSoTimeout(20_000);
            assertEquals(-1, in.read(), "the tunnel ended with the client's close");
        }
    }

    /** TLS 1.2 has no half-close: the upstream's ends the tunnel both ways, as any close does. */
    @Test
    void withATls12ClientTheUpstreamsHalfCloseEndsTheTunnel() throws Exception {
        assumeTrue(TestTls.ON, "TLS suite only");
        try (ServerSocket server = TestTls.listen(1);
             ProxyHarness proxy = ProxyHarness.forUpstream(TestTls.scheme() + "://127.0.0.1:" + server.getLocalPort() + "/", "");
             RawHttp client = new RawHttp(TestTls.connect(proxy.port(), "TLSv1.2"));
             Socket upstream = open(server, client)) {
            upstream.shutdownOutput();
            assertTrue(client.closedByPeer(), "the client connection closed");
            assertTrue(closed(upstream.getInputStream()), "the upstream connection closed");
        }
    }

    /** True at the end of the stream or a failed read (the JDK's TLS socket reports an end without close_notify so). */
    private static boolean closed(InputStream in) {
        try {
            return in.read() == -1;
        } catch (java.net.SocketTimeoutException stillOpen) {
            return false;
        } catch (IOException ended) {
            return true;
        }
    }

    /**
     * The tunnel through Kodiak: {@code client} asks for the upgrade, the upstream accepted on
     * {@code server} switches, and one message goes each way. Returns the upstream's socket.
     */
    private static Socket open(ServerSocket server, RawHttp client) throws IOException {
        client.send(UPGRADE);
        Socket upstream = server.accept();
        upstream.setSoTimeout(20_000);
        InputStream in = upstream.getInputStream();
        for (int matched = 0; matched < 4; ) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("the upgrade request ended early");
            }
            matched = b == "\r\n\r\n".charAt(matched) ? matched + 1 : b == '\r' ? 1 : 0;
        }
        send(upstream, SWITCHING);
        assertEquals(101, client.readHead().status());
        client.send("ping");
        assertEquals("ping", new String(in.readNBytes(4), StandardCharsets.US_ASCII));
        send(upstream, "pong");
        assertEquals("pong", new String(client.readBytes(4), StandardCharsets.US_ASCII));
        return upstream;
    }

    private static void send(Socket socket, String ascii) throws IOException {
        socket.getOutputStream().write(ascii.getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
    }
}
