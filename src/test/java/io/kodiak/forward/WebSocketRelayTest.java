package io.kodiak.forward;

import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import org.java_websocket.WebSocket;
import org.java_websocket.handshake.ClientHandshake;
import org.java_websocket.server.WebSocketServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket.Listener;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * WebSocket through Kodiak with real peers: the JDK's WebSocket client, Java-WebSocket's server.
 * The upgrade is forwarded, the 101 turns both connections into a byte relay, messages of any size
 * pass both ways, and a close on either side ends both connections.
 */
class WebSocketRelayTest {
    private EchoServer server;

    /** Echoes every message; tells the upgrade request's headers and when a connection closed. */
    private static final class EchoServer extends WebSocketServer {
        final CountDownLatch started = new CountDownLatch(1);
        final BlockingQueue<String> upgradeHeaders = new LinkedBlockingQueue<>();
        final BlockingQueue<Integer> closes = new LinkedBlockingQueue<>();

        EchoServer() {
            super(new InetSocketAddress("127.0.0.1", 0));
            setReuseAddr(true);
        }

        @Override
        public void onOpen(WebSocket conn, ClientHandshake handshake) {
            upgradeHeaders.add(handshake.getFieldValue("X-Forwarded-For") + "|" + handshake.getResourceDescriptor());
        }

        @Override
        public void onClose(WebSocket conn, int code, String reason, boolean remote) {
            closes.add(code);
        }

        @Override
        public void onMessage(WebSocket conn, String message) {
            conn.send(message);
        }

        @Override
        public void onMessage(WebSocket conn, ByteBuffer message) {
            conn.send(message);
        }

        @Override
        public void onError(WebSocket conn, Exception ex) {
        }

        @Override
        public void onStart() {
            started.countDown();
        }
    }

    /** Collects what the client receives, whole messages only. */
    private static final class Collector implements Listener {
        final BlockingQueue<Object> messages = new LinkedBlockingQueue<>();
        private final StringBuilder text = new StringBuilder();
        private final java.io.ByteArrayOutputStream binary = new java.io.ByteArrayOutputStream();
        final CompletableFuture<Integer> closed = new CompletableFuture<>();

        @Override
        public CompletionStage<?> onText(java.net.http.WebSocket ws, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                messages.add(text.toString());
                text.setLength(0);
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onBinary(java.net.http.WebSocket ws, ByteBuffer data, boolean last) {
            byte[] bytes = new byte[data.remaining()];
            data.get(bytes);
            binary.writeBytes(bytes);
            if (last) {
                messages.add(binary.toByteArray());
                binary.reset();
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(java.net.http.WebSocket ws, int status, String reason) {
            closed.complete(status);
            return null;
        }
    }

    @BeforeEach
    void startServer() throws Exception {
        server = new EchoServer();
        if (io.kodiak.support.TestTls.ON) {
            server.setWebSocketFactory(new org.java_websocket.server.DefaultSSLWebSocketServerFactory(
                    io.kodiak.support.TestTls.serverContext()));
        }
        server.start();
        assertTrue(server.started.await(10, TimeUnit.SECONDS));
    }

    @AfterEach
    void stopServer() throws Exception {
        server.stop(1000);
    }

    private String upstreamUrl() {
        return io.kodiak.support.TestTls.scheme() + "://127.0.0.1:" + server.getPort() + "/ws/";
    }

    private static java.net.http.WebSocket connect(ProxyHarness proxy, String path, Collector collector) {
        return io.kodiak.support.TestTls.httpClient().build().newWebSocketBuilder()
                .buildAsync(URI.create(io.kodiak.support.TestTls.webSocketScheme() + "://127.0.0.1:" + proxy.port() + path), collector).join();
    }

    @Test
    void messagesOfAnySizeGoBothWaysAndACloseEndsBothConnections() throws Exception {
        try (ProxyHarness proxy = ProxyHarness.forUpstream(upstreamUrl(), "")) {
            Collector collector = new Collector();
            java.net.http.WebSocket ws = connect(proxy, "/chat?room=1", collector);
            assertEquals("127.0.0.1|/ws/chat?room=1", server.upgradeHeaders.poll(10, TimeUnit.SECONDS),
                    "the upgrade request went through the route, with X-Forwarded-For");

            ws.sendText("hello", true).join();
            assertEquals("hello", collector.messages.poll(10, TimeUnit.SECONDS));

            // Several MiB in one message: the relay's back-pressure holds it, nothing is lost or reordered.
            byte[] large = new byte[6 * 1024 * 1024];
            new Random(7).nextBytes(large);
            ws.sendBinary(ByteBuffer.wrap(large), true).join();
            Object echoed = collector.messages.poll(30, TimeUnit.SECONDS);
            assertTrue(echoed instanceof byte[], String.valueOf(echoed));
            assertArrayEquals(large, (byte[]) echoed);

            ws.sendClose(java.net.http.WebSocket.NORMAL_CLOSURE, "bye").join();
            assertEquals(java.net.http.WebSocket.NORMAL_CLOSURE, collector.closed.get(10, TimeUnit.SECONDS));
            assertEquals(java.net.http.WebSocket.NORMAL_CLOSURE, server.closes.poll(10, TimeUnit.SECONDS));
            io.kodiak.support.Await.await(() -> proxy.kodiak().listener().openConnections() == 0,
                    "the client connection to close after the tunnel ended");
        }
    }

    @Test
    void manyMessagesInterleaveInOrder() throws Exception {
        try (ProxyHarness proxy = ProxyHarness.forUpstream(upstreamUrl(), "")) {
            Collector collector = new Collector();
            java.net.http.WebSocket ws = connect(proxy, "/", collector);
            for (int i = 0; i < 200; i++) {
                ws.sendText("m" + i, true).join();
            }
            for (int i = 0; i < 200; i++) {
                assertEquals("m" + i, collector.messages.poll(10, TimeUnit.SECONDS));
            }
            ws.abort();
        }
    }

    @Test
    void aRouteWithUpgradeOffServesTheRequestAsAnOrdinaryOne() throws Exception {
        String hocon = "proxy.routes = [ { prefix = \"/\", upstream = \"" + upstreamUrl() + "\", upgrade = false } ]\n";
        try (ProxyHarness proxy = ProxyHarness.start(hocon)) {
            CompletionException refused = assertThrows(CompletionException.class,
                    () -> connect(proxy, "/", new Collector()));
            assertTrue(refused.getCause() instanceof java.net.http.WebSocketHandshakeException, refused.toString());
            // The upstream saw no Upgrade field, so it answered as it does to a plain GET.
            try (RawHttp raw = new RawHttp(proxy.port())) {
                RawHttp.Response response = raw.send("GET / HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\n"
                        + "Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n").read();
                assertTrue(response.status() != 101, "status " + response.status());
            }
        }
    }

    @Test
    void bytesTheClientSendsRightAfterTheUpgradeRequestReachTheServer() throws Exception {
        try (ProxyHarness proxy = ProxyHarness.forUpstream(upstreamUrl(), "");
             RawHttp raw = new RawHttp(proxy.port())) {
            // A masked text frame "hi" sent in the same write as the handshake, before any 101.
            byte[] frame = {(byte) 0x81, (byte) 0x82, 1, 2, 3, 4, (byte) ('h' ^ 1), (byte) ('i' ^ 2)};
            String handshake = "GET /early HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                    + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n";
            byte[] request = handshake.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
            byte[] all = Arrays.copyOf(request, request.length + frame.length);
            System.arraycopy(frame, 0, all, request.length, frame.length);
            raw.send(all);
            RawHttp.Response switched = raw.read();
            assertEquals(101, switched.status());
            assertEquals("websocket", switched.header("upgrade").toLowerCase(java.util.Locale.ROOT));
            // The echo comes back unmasked: 0x81, length 2, "hi".
            byte[] echo = raw.readBytes(4);
            assertArrayEquals(new byte[]{(byte) 0x81, 2, 'h', 'i'}, echo);
        }
    }
}
