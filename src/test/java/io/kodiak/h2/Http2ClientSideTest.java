package io.kodiak.h2;

import io.kodiak.support.H2Client;
import io.kodiak.support.Patterns;
import io.kodiak.support.ProxyHarness;
import io.kodiak.support.TestUpstream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * HTTP/2 clients (h2c, prior knowledge) through Kodiak to an HTTP/1.1 upstream, on raw frames:
 * what the upstream receives, what the client gets back, flow control, and each defence, with the
 * connection still serving the next stream where the RFC says it must.
 */
class Http2ClientSideTest {
    private static final int PROTOCOL_ERROR = 0x1, FLOW_CONTROL_ERROR = 0x3, FRAME_SIZE_ERROR = 0x6,
            REFUSED_STREAM = 0x7, ENHANCE_YOUR_CALM = 0xb, NO_ERROR = 0x0;
    private static TestUpstream upstream;
    private static ProxyHarness proxy;

    @BeforeAll
    static void start() throws Exception {
        upstream = TestUpstream.start();
        proxy = ProxyHarness.start("""
                proxy.listener.http2-settings.max-concurrent-streams = 100
                proxy.routes = [
                  { prefix = "/h/", upstream = "%s" }
                  { prefix = "/echo", upstream = "%s" }
                  { prefix = "/digest", upstream = "%s" }
                  { prefix = "/bytes/", upstream = "%s" }
                  { prefix = "/hold", upstream = "%s" }
                ]
                """.formatted(upstream.url("/headers/"), upstream.url("/echo"), upstream.url("/digest"),
                upstream.url("/bytes/"), upstream.url("/hold")));
    }

    @AfterAll
    static void stop() {
        proxy.close();
        upstream.close();
    }

    @Test
    void aGetReachesTheHttp11UpstreamWithHostFromItsAuthority() throws Exception {
        try (H2Client client = H2Client.connect(proxy.port())) {
            H2Client.Response response = client.response(client.request("GET", "/h/x?q=1", null,
                    "accept", "text/plain", "cookie", "a=1", "cookie", "b=2"));
            assertEquals(200, response.status());
            String seen = response.bodyText();
            assertTrue(seen.startsWith("GET /headers/x?q=1\n"), seen);
            assertTrue(seen.contains("\nhost: 127.0.0.1:"), "Host is the upstream's, as for HTTP/1.1: " + seen);
            assertTrue(seen.contains("\ncookie: a=1; b=2\n"), "cookies joined (RFC 9113 §8.2.3): " + seen);
            assertTrue(seen.contains("\naccept: text/plain\n"), seen);
            assertFalse(response.headers().containsKey("connection"), response.headers().toString());
            assertFalse(response.headers().containsKey("keep-alive"), response.headers().toString());
            assertFalse(response.headers().containsKey("x-drop-me"), "named by Connection: " + response.headers());
            assertEquals("kept", response.headers().get("x-end-to-end"));
            assertEquals(String.valueOf(response.body().length), response.headers().get("content-length"));
        }
    }

    @Test
    void bodiesGoUpWithAndWithoutALengthAndComeBackWhole() throws Exception {
        byte[] body = Patterns.bytes(300_000);
        try (H2Client client = H2Client.connect(proxy.port())) {
            H2Client.Response sized = client.response(client.request("POST", "/echo", body,
                    "content-length", String.valueOf(body.length), "content-type", "application/octet-stream"));
            assertEquals(200, sized.status());
            assertArrayEquals(body, sized.body());
            // No length: the upstream gets it chunked.
            H2Client.Response unsized = client.response(client.request("POST", "/digest", body));
            assertEquals(200, unsized.status());
            assertEquals("sha256=" + Patterns.hex(MessageDigest.getInstance("SHA-256").digest(body))
                    + " bytes=" + body.length, unsized.bodyText());
        }
    }

    @Test
    void aLargeResponseFlowsAsTheClientOpensItsWindow() throws Exception {
        int size = 3 * 1024 * 1024;
        try (H2Client client = H2Client.connect(proxy.port())) {
            H2Client.Response response = client.response(client.request("GET", "/bytes/" + size, null));
            assertEquals(200, response.status());
            assertArrayEquals(Patterns.bytes(size), response.body());
        }
    }

    @Test
    void aClientThatOpensNoWindowGetsNoMoreThanItAllowed() throws Exception {
        try (H2Client client = H2Client.connect(proxy.port())) {
            client.autoWindow(false);
            int stream = client.request("GET", "/bytes/200000", null);
            int received = 0;
            // The default windows: 65,535 bytes on the stream and on the connection.
            while (received < 65_535) {
                H2Client.Frame frame = client.readFrame();
                if (frame.type() == H2Client.DATA) {
                    received += frame.payload().length;
                }
            }
            assertEquals(65_535, received);
            client.frame(H2Client.PING, 0, 0, new byte[8]);
            H2Client.Frame next = client.readFrame();
            assertEquals(H2Client.PING, next.type(), "no DATA beyond the window: " + next);
            byte[] more = ByteBuffer.allocate(4).putInt(200_000).array();
            client.frame(H2Client.WINDOW_UPDATE, 0, 0, more);
            client.frame(H2Client.WINDOW_UPDATE, 0, stream, more);
            H2Client.Response rest = client.response(stream);
            assertEquals(200_000 - 65_535, rest.body().length);
        }
    }

    @Test
    void aHundredConcurrentStreamsOnOneConnection() throws Exception {
        try (H2Client client = H2Client.connect(proxy.port())) {
            List<Integer> streams = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                streams.add(client.request("GET", "/h/s" + i, null));
            }
            for (int i = 0; i < 100; i++) {
                H2Client.Response response = client.response(streams.get(i));
                assertEquals(200, response.status());
                assertTrue(response.bodyText().startsWith("GET /headers/s" + i + "\n"), response.bodyText());
            }
        }
    }

    @Test
    void noRouteIsKodiaksOwnAnswerOnTheStream() throws Exception {
        try (H2Client client = H2Client.connect(proxy.port())) {
            H2Client.Response response = client.response(client.request("GET", "/nowhere", null));
            assertEquals(404, response.status());
            assertTrue(response.bodyText().startsWith("404 no route"), response.bodyText());
            assertEquals(200, client.response(client.request("GET", "/h/next", null)).status());
        }
    }

    @Test
    void malformedRequestsResetTheirStreamAndTheConnectionGoesOn() throws Exception {
        try (H2Client client = H2Client.connect(proxy.port())) {
            String[][] malformed = {
                    {":method", "GET", ":scheme", "http", ":path", "/h/a", ":authority", "x", "Upper", "1"},
                    {":method", "GET", ":scheme", "http", ":path", "/h/a", ":authority", "x", "connection", "close"},
                    {":method", "GET", ":scheme", "http", ":path", "/h/a", ":authority", "x", "transfer-encoding", "chunked"},
                    {":method", "GET", ":scheme", "http", ":path", "/h/a", ":authority", "x", "te", "gzip"},
                    {":method", "GET", ":scheme", "http", ":path", "/h/a", ":authority", "x", "x-a", "b\r\nx-smuggled: 1"},
                    {":method", "GET", ":scheme", "http", ":authority", "x"},
                    {":method", "GET", ":scheme", "http", ":path", "/h/a b", ":authority", "x"},
                    {":method", "GET", ":path", "/h/a", ":scheme", "http", ":authority", "x", "host", "other"},
                    {"x-a", "1", ":method", "GET", ":scheme", "http", ":path", "/h/a", ":authority", "x"},
            };
            for (String[] fields : malformed) {
                int stream = client.headers(H2Client.literalBlock(fields), true);
                H2Client.Response response = client.response(stream);
                assertEquals(PROTOCOL_ERROR, response.reset(), String.join(" ", fields));
            }
            assertEquals(200, client.response(client.request("GET", "/h/after", null)).status());
        }
    }

    @Test
    void dataThatDisagreesWithContentLengthResetsTheStream() throws Exception {
        try (H2Client client = H2Client.connect(proxy.port())) {
            int stream = client.nextStreamId();
            client.headers(client.requestBlock("POST", "/echo", "x", "content-length", "3"), false);
            client.sendData(stream, "four".getBytes(StandardCharsets.US_ASCII), true);
            assertEquals(PROTOCOL_ERROR, client.response(stream).reset());
            assertEquals(200, client.response(client.request("GET", "/h/after", null)).status());
        }
    }

    @Test
    void headersOverMaxHeaderSizeGet431() throws Exception {
        try (H2Client client = H2Client.connect(proxy.port())) {
            H2Client.Response response = client.response(client.request("GET", "/h/big", null, "x-big", "a".repeat(9000)));
            assertEquals(431, response.status());
            assertEquals(200, client.response(client.request("GET", "/h/after", null)).status());
        }
    }

    @Test
    void aContinuationFloodEndsTheConnection() throws Exception {
        try (H2Client client = H2Client.connect(proxy.port())) {
            int stream = client.nextStreamId();
            byte[] start = client.requestBlock("GET", "/h/a", "x");
            client.frame(H2Client.HEADERS, 0, stream, start);
            byte[] filler = H2Client.literalBlock("x-f", "a".repeat(1000));
            try {
                for (int i = 0; i < 40; i++) {
                    client.frame(H2Client.CONTINUATION, 0, stream, filler);
                }
            } catch (java.io.IOException closed) {
                // the server closed as soon as the block passed its bound
            }
            assertTrue(client.closedByServer());
            assertNotNull(client.goAway);
            assertEquals(ENHANCE_YOUR_CALM, client.goAway.errorCode());
        }
    }

    @Test
    void rapidResetEndsTheConnection() throws Exception {
        try (H2Client client = H2Client.connect(proxy.port())) {
            byte[] cancel = ByteBuffer.allocate(4).putInt(0x8).array();
            try {
                for (int i = 0; i < 400; i++) {
                    int stream = client.request("GET", "/hold", null);
                    client.frame(H2Client.RST_STREAM, 0, stream, cancel);
                }
            } catch (java.io.IOException closed) {
                // the server closed once the resets passed their bound
            }
            assertTrue(client.closedByServer());
            assertNotNull(client.goAway);
            assertEquals(ENHANCE_YOUR_CALM, client.goAway.errorCode());
        }
    }

    @Test
    void pingIsAnsweredAndAPingFloodEndsTheConnection() throws Exception {
        try (H2Client client = H2Client.connect(proxy.port())) {
            byte[] data = "12345678".getBytes(StandardCharsets.US_ASCII);
            client.frame(H2Client.PING, 0, 0, data);
            H2Client.Frame ack = client.until(H2Client.PING);
            assertEquals(H2Client.ACK, ack.flags());
            assertArrayEquals(data, ack.payload());
            try {
                for (int i = 0; i < 5000; i++) {
                    client.frame(H2Client.PING, 0, 0, data);
                }
            } catch (java.io.IOException closed) {
                // the server closed once the pings passed their bound
            }
            assertTrue(client.closedByServer());
            assertEquals(ENHANCE_YOUR_CALM, client.goAway.errorCode());
        }
    }

    @Test
    void aFrameOverMaxFrameSizeEndsTheConnection() throws Exception {
        try (H2Client client = H2Client.connect(proxy.port())) {
            int stream = client.nextStreamId();
            client.headers(client.requestBlock("POST", "/echo", "x"), false);
            client.frame(H2Client.DATA, 0, stream, new byte[16_385]);
            assertTrue(client.closedByServer());
            assertEquals(FRAME_SIZE_ERROR, client.goAway.errorCode());
        }
    }

    @Test
    void aStreamWhoseUpstreamDoesNotReadGetsNoWindowAndOverrunningItIsAFlowControlError() throws Exception {
        try (java.net.ServerSocket deaf = new java.net.ServerSocket()) {
            deaf.setReceiveBufferSize(4096);
            deaf.bind(new java.net.InetSocketAddress("127.0.0.1", 0));
            List<java.net.Socket> accepted = java.util.Collections.synchronizedList(new ArrayList<>());
            Thread acceptor = new Thread(() -> {
                try {
                    accepted.add(deaf.accept());
                } catch (java.io.IOException ignored) {
                    // closed at the end
                }
            });
            acceptor.start();
            try (ProxyHarness toDeaf = ProxyHarness.forUpstream("http://127.0.0.1:" + deaf.getLocalPort() + "/", "");
                 H2Client client = H2Client.connect(toDeaf.port())) {
                int stream = client.nextStreamId();
                client.headers(client.requestBlock("POST", "/up", "x"), false);
                byte[] piece = new byte[16_384];
                int reset = -1;
                // The upstream reads nothing: once its socket and Kodiak's queue are full, the
                // stream's window stays shut, and a client that sends on regardless overruns it.
                for (int sent = 0; sent < 64 << 20 && reset < 0; sent += piece.length) {
                    client.frame(H2Client.DATA, 0, stream, piece);
                    if (client.available()) {
                        H2Client.Frame frame = client.readFrame();
                        if (frame.type() == H2Client.RST_STREAM && frame.stream() == stream) {
                            reset = frame.errorCode();
                        }
                    }
                }
                if (reset < 0) {
                    reset = client.response(stream).reset();
                }
                assertEquals(FLOW_CONTROL_ERROR, reset);
            } finally {
                for (java.net.Socket socket : accepted) {
                    socket.close();
                }
            }
        }
    }

    @Test
    void streamsAClientGivesNoWindowAreResetAfterIdleTimeout() throws Exception {
        try (ProxyHarness quick = ProxyHarness.forUpstream(upstream.url("/"), "proxy.listener.idle-timeout = 1s\n");
             H2Client client = H2Client.connect(quick.port(), 0x4, 0)) {
            client.autoWindow(false);
            List<Integer> streams = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                streams.add(client.request("GET", "/bytes/60000", null));
            }
            for (int stream : streams) {
                assertEquals(0x8, client.response(stream).reset(), "CANCEL, once idle-timeout passed with no window");
            }
            // The connection itself serves on.
            client.autoWindow(true);
            client.frame(H2Client.SETTINGS, 0, 0, ByteBuffer.allocate(6).putShort((short) 0x4).putInt(65_535).array());
            assertEquals(200, client.response(client.request("GET", "/headers/after", null)).status());
        }
    }

    @Test
    void resetsAClientProvokesCountAsResetsToo() throws Exception {
        try (H2Client client = H2Client.connect(proxy.port())) {
            byte[] zero = new byte[4];
            try {
                for (int i = 0; i < 400; i++) {
                    int stream = client.request("GET", "/hold", null);
                    // A WINDOW_UPDATE of 0 on a stream: a stream error Kodiak answers with RST_STREAM.
                    client.frame(H2Client.WINDOW_UPDATE, 0, stream, zero);
                }
            } catch (java.io.IOException closed) {
                // the server closed once the resets passed their bound
            }
            assertTrue(client.closedByServer());
            assertNotNull(client.goAway);
            assertEquals(ENHANCE_YOUR_CALM, client.goAway.errorCode());
        }
    }

    @Test
    void aStreamThatDependsOnItselfIsResetAndHpackStaysInStep() throws Exception {
        try (H2Client client = H2Client.connect(proxy.port())) {
            int stream = client.nextStreamId();
            client.skipStreamId();
            byte[] fields = client.requestBlock("GET", "/h/self", "x", "x-indexed-once", "value-to-remember");
            byte[] withPriority = new byte[5 + fields.length];
            ByteBuffer.wrap(withPriority).putInt(stream).put((byte) 16);
            System.arraycopy(fields, 0, withPriority, 5, fields.length);
            client.frame(H2Client.HEADERS, H2Client.END_HEADERS | H2Client.END_STREAM | 0x20, stream, withPriority);
            assertEquals(PROTOCOL_ERROR, client.response(stream).reset());
            // The next block refers to the dynamic table entries the reset one added.
            H2Client.Response next = client.response(client.request("GET", "/h/next", null,
                    "x-indexed-once", "value-to-remember"));
            assertEquals(200, next.status());
            assertTrue(next.bodyText().contains("\nx-indexed-once: value-to-remember\n"), next.bodyText());
        }
    }

    @Test
    void aResponseFieldHuffmanMakesLongerThanItIsStillEncoded() throws Exception {
        String json = "{}".repeat(300);
        try (io.kodiak.support.ScriptedUpstream odd = new io.kodiak.support.ScriptedUpstream(n ->
                "HTTP/1.1 200 OK\r\nx-first: value-one\r\nx-json: " + json + "\r\nContent-Length: 2\r\n\r\nok", false);
             ProxyHarness toOdd = ProxyHarness.forUpstream(odd.url("/"), "");
             H2Client client = H2Client.connect(toOdd.port())) {
            for (int i = 0; i < 3; i++) {
                H2Client.Response response = client.response(client.request("GET", "/" + i, null));
                assertEquals(200, response.status());
                assertEquals(json, response.headers().get("x-json"));
                assertEquals("value-one", response.headers().get("x-first"));
            }
        }
    }

    @Test
    void aClientThatVanishesMidResponseEndsEveryExchangeOnItsConnection() throws Exception {
        long strays = io.kodiak.loop.EventLoops.strays();
        // Grizzly logs (java.util.logging) what a filter threw: a write that finds the client gone
        // closes the connection at once, and its close must not pull an exchange out from under itself.
        java.util.logging.Logger chain = java.util.logging.Logger.getLogger("org.glassfish.grizzly.filterchain.DefaultFilterChain");
        List<String> thrown = java.util.Collections.synchronizedList(new ArrayList<>());
        java.util.logging.Handler recorder = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord record) {
                if (record.getThrown() != null) {
                    thrown.add(String.valueOf(record.getThrown()));
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        chain.addHandler(recorder);
        try {
            vanishingClients();
        } finally {
            chain.removeHandler(recorder);
        }
        assertEquals(List.of(), thrown);
        assertEquals(strays, io.kodiak.loop.EventLoops.strays());
        try (H2Client client = H2Client.connect(proxy.port())) {
            assertEquals(200, client.response(client.request("GET", "/h/after", null)).status());
        }
    }

    private static void vanishingClients() throws Exception {
        for (int round = 0; round < 5; round++) {
            H2Client client = H2Client.connect(proxy.port());
            for (int i = 0; i < 50; i++) {
                client.request("GET", "/bytes/" + (100_000 + i), null);
            }
            // Some DATA has come: responses are being written when the connection is reset.
            while (client.readFrame().type() != H2Client.DATA) {
                // skip HEADERS and the rest
            }
            client.abort();
        }
        io.kodiak.support.Await.await(() -> proxy.kodiak().drain().inFlight() == 0,
                () -> "every exchange ended, " + proxy.kodiak().drain().inFlight() + " still in flight");
    }

    @Test
    void framesOnClosedStreamsAndLowerIdsAreAnsweredAsRfc9113Says() throws Exception {
        try (H2Client client = H2Client.connect(proxy.port())) {
            int done = client.request("GET", "/h/first", null);
            assertEquals(200, client.response(done).status());
            // DATA on a stream both sides ended: STREAM_CLOSED, and the connection goes on.
            client.frame(H2Client.DATA, H2Client.END_STREAM, done, "late".getBytes(StandardCharsets.US_ASCII));
            H2Client.Frame reset = client.until(H2Client.RST_STREAM);
            assertEquals(done, reset.stream());
            assertEquals(0x5, reset.errorCode());
            // PRIORITY that makes a stream depend on itself: a stream error.
            int idle = client.nextStreamId() + 10;
            client.frame(H2Client.PRIORITY, 0, idle, ByteBuffer.allocate(5).putInt(idle).put((byte) 16).array());
            H2Client.Frame selfReset = client.until(H2Client.RST_STREAM);
            assertEquals(idle, selfReset.stream());
            assertEquals(PROTOCOL_ERROR, selfReset.errorCode());
            assertEquals(200, client.response(client.request("GET", "/h/second", null)).status());
        }
        try (H2Client client = H2Client.connect(proxy.port())) {
            client.skipStreamId();
            client.skipStreamId();
            assertEquals(200, client.response(client.request("GET", "/h/five", null)).status());
            // Stream 1 was never used, and 5 was: a HEADERS on 1 is a connection error.
            client.frame(H2Client.HEADERS, H2Client.END_HEADERS | H2Client.END_STREAM, 1, client.requestBlock("GET", "/h/one", "x"));
            assertTrue(client.closedByServer());
            assertEquals(PROTOCOL_ERROR, client.goAway.errorCode());
        }
    }

    @Test
    void theFirstFrameMustBeSettings() throws Exception {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", proxy.port())) {
            socket.setSoTimeout(5000);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.write(new byte[]{0, 0, 8, 6, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8});
            socket.getOutputStream().write(out.toByteArray());
            byte[] all = socket.getInputStream().readAllBytes();
            // SETTINGS, WINDOW_UPDATE, then GOAWAY PROTOCOL_ERROR, then the close.
            int at = 0;
            int lastType = -1;
            int code = -1;
            while (at + 9 <= all.length) {
                int length = (all[at] & 0xff) << 16 | (all[at + 1] & 0xff) << 8 | all[at + 2] & 0xff;
                lastType = all[at + 3];
                if (lastType == H2Client.GOAWAY) {
                    code = ByteBuffer.wrap(all, at + 13, 4).getInt();
                }
                at += 9 + length;
            }
            assertEquals(H2Client.GOAWAY, lastType);
            assertEquals(PROTOCOL_ERROR, code);
        }
    }

    @Test
    void streamsOverMaxConcurrentStreamsAreRefused() throws Exception {
        try (H2Client client = H2Client.connect(proxy.port())) {
            assertEquals(100, client.serverSettings.get(0x3));
            List<Integer> held = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                held.add(client.request("GET", "/hold", null));
            }
            int refused = client.request("GET", "/h/one-too-many", null);
            assertEquals(REFUSED_STREAM, client.response(refused).reset());
            byte[] cancel = ByteBuffer.allocate(4).putInt(0x8).array();
            for (int stream : held) {
                client.frame(H2Client.RST_STREAM, 0, stream, cancel);
            }
            assertEquals(200, client.response(client.request("GET", "/h/after", null)).status());
        }
    }

    @Test
    void withHttp2OffThePrefaceIsAnHttp11RequestRefused() throws Exception {
        try (ProxyHarness off = ProxyHarness.forUpstream(upstream.url("/headers/"), "proxy.listener.http2 = false\n");
             java.net.Socket socket = new java.net.Socket("127.0.0.1", off.port())) {
            socket.setSoTimeout(5000);
            socket.getOutputStream().write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            assertTrue(answer.startsWith("HTTP/1.1 505") || answer.startsWith("HTTP/1.1 501"), answer);
        }
    }

    @Test
    void aStopLetsTheOpenStreamFinishThenSaysGoAway() throws Exception {
        try (TestUpstream held = TestUpstream.start()) {
            ProxyHarness stopping = ProxyHarness.forUpstream(held.url("/"), "proxy.shutdown.grace-period = 20s\n");
            try (H2Client client = H2Client.connect(stopping.port())) {
                int stream = client.request("GET", "/hold", null);
                io.kodiak.support.Await.await(() -> held.holds() == 1, "the request to reach the upstream");
                java.util.concurrent.CompletableFuture<Void> stop = java.util.concurrent.CompletableFuture.runAsync(stopping::close);
                io.kodiak.support.Await.await(() -> !accepts(stopping.port()), "the listener to stop accepting");
                held.release();
                H2Client.Response response = client.response(stream);
                assertEquals(200, response.status());
                assertEquals("held ok", response.bodyText());
                assertTrue(client.closedByServer(), "the connection closes once its streams are done");
                assertNotNull(client.goAway);
                assertEquals(NO_ERROR, client.goAway.errorCode());
                assertEquals(stream, ByteBuffer.wrap(client.goAway.payload(), 0, 4).getInt());
                stop.get(10, java.util.concurrent.TimeUnit.SECONDS);
            }
        }
    }

    private static boolean accepts(int port) {
        try (java.net.Socket ignored = new java.net.Socket("127.0.0.1", port)) {
            return true;
        } catch (java.io.IOException refused) {
            return false;
        }
    }

    @Test
    void theAccessLogSaysHttp2ForRelayedAndRefusedRequests() throws Exception {
        List<String> lines;
        try (io.kodiak.support.AccessLogLines log = new io.kodiak.support.AccessLogLines()) {
            ProxyHarness logged = ProxyHarness.start("""
                    proxy.access-log.format = "$server_protocol $status $request_uri"
                    proxy.routes = [ { prefix = "/h/", upstream = "%s" } ]
                    """.formatted(upstream.url("/headers/")));
            try (H2Client client = H2Client.connect(logged.port())) {
                assertEquals(200, client.response(client.request("GET", "/h/logged", null)).status());
                assertEquals(404, client.response(client.request("GET", "/unrouted", null)).status());
            } finally {
                logged.close();
            }
            lines = log.lines();
        }
        assertTrue(lines.contains("HTTP/2.0 200 /h/logged"), lines.toString());
        assertTrue(lines.contains("HTTP/2.0 404 /unrouted"), lines.toString());
    }

    @Test
    void curlWithPriorKnowledgeGetsItsAnswer() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(new java.io.File("/usr/bin/curl").canExecute(), "curl not installed");
        Process curl = new ProcessBuilder("curl", "-s", "--http2-prior-knowledge", "-w", "\n%{http_version} %{http_code}",
                "--data-binary", "hello over h2", "-H", "content-type: text/plain",
                "http://127.0.0.1:" + proxy.port() + "/echo").redirectErrorStream(true).start();
        String out = new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, curl.waitFor());
        assertEquals("hello over h2\n2 200", out);
    }
}
