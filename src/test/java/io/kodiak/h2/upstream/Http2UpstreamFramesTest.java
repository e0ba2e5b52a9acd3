package io.kodiak.h2.upstream;

import io.kodiak.support.Await;
import io.kodiak.support.H2Client;
import io.kodiak.support.H2Server;
import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import io.kodiak.support.TestTls;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Kodiak toward an h2 upstream that the test scripts frame by frame ({@link H2Server}): what the
 * server receives, and what clients get when the server answers normally, goes away, refuses,
 * resets, or breaks the protocol.
 */
class Http2UpstreamFramesTest {
    private static final int REFUSED_STREAM = 0x7, PROTOCOL_ERROR = 0x1, NO_ERROR = 0;

    /** One event loop: every exchange shares one pool of h2 connections, so the test knows which connection a request takes. */
    private static ProxyHarness proxy(H2Server upstream) throws Exception {
        return ProxyHarness.start("""
                proxy.listener.selector-threads = 1
                proxy.upstreams { h2 { protocol = "h2", servers = [ "%s" ], retry { attempts = 1 } } }
                proxy.routes = [ { prefix = "/", upstream = "http://h2/" } ]
                """.formatted(upstream.url()));
    }

    /** One request on a connection of its own, answered while the test plays the upstream. */
    private static CompletableFuture<RawHttp.Response> exchange(ProxyHarness proxy, String request) {
        return CompletableFuture.supplyAsync(() -> {
            try (RawHttp client = new RawHttp(proxy.port())) {
                return client.send(request).read(false);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static String get(ProxyHarness proxy, String path, String... fields) throws Exception {
        StringBuilder request = new StringBuilder("GET " + path + " HTTP/1.1\r\nHost: proxy.test\r\n");
        for (int i = 0; i < fields.length; i += 2) {
            request.append(fields[i]).append(": ").append(fields[i + 1]).append("\r\n");
        }
        try (RawHttp client = new RawHttp(proxy.port())) {
            RawHttp.Response response = client.send(request.append("\r\n").toString()).read(false);
            return response.status() + " " + response.bodyText();
        }
    }

    @Test
    void theRequestArrivesInHttp2FormAndTheAnswerComesBack() throws Exception {
        try (H2Server upstream = H2Server.start(); ProxyHarness proxy = proxy(upstream)) {
            ExecutorService client = Executors.newSingleThreadExecutor();
            Future<String> answer = client.submit(() -> get(proxy, "/a/b?c=d", "Cookie", "x=1", "Connection", "keep-alive, X-Hop",
                    "X-Hop", "gone", "X-Kept", "yes"));
            H2Server.Conn conn = upstream.accept();
            H2Server.Request request = conn.request();
            assertEquals("GET", request.field(":method"));
            assertEquals("http", request.field(":scheme"));
            assertEquals("/a/b?c=d", request.field(":path"));
            assertEquals("h2", request.field(":authority"));
            assertEquals("yes", request.field("x-kept"));
            assertEquals("x=1", request.field("cookie"));
            assertNull(request.field("host"), "Host travels as :authority");
            assertNull(request.field("connection"));
            assertNull(request.field("x-hop"), "a field the client's Connection named is hop-by-hop");
            assertTrue(request.field("x-forwarded-for").startsWith("127.0.0.1"), request.fields().toString());
            conn.respond(request.stream(), 200, "hello", "content-type", "text/plain");
            assertEquals("200 hello", answer.get(10, TimeUnit.SECONDS));
            client.shutdown();
        }
    }

    @Test
    void aPostBodyGoesAsDataWithinTheServersWindow() throws Exception {
        try (H2Server upstream = H2Server.start(); ProxyHarness proxy = proxy(upstream)) {
            byte[] body = new byte[200_000];
            for (int i = 0; i < body.length; i++) {
                body[i] = (byte) (i * 31);
            }
            CompletableFuture<RawHttp.Response> answer = CompletableFuture.supplyAsync(() -> {
                try (RawHttp client = new RawHttp(proxy.port())) {
                    client.send("POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: " + body.length + "\r\n\r\n");
                    client.send(body);
                    return client.read(false);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            // A window of 1000 bytes: the body must wait for our WINDOW_UPDATEs (request() sends them).
            H2Server.Conn conn = upstream.accept(H2Server.SETTINGS_INITIAL_WINDOW_SIZE, 1000);
            H2Server.Request request = conn.request();
            assertEquals("POST", request.field(":method"));
            assertEquals(Integer.toString(body.length), request.field("content-length"));
            assertArrayEquals(body, request.body());
            conn.respond(request.stream(), 201, "");
            RawHttp.Response response = answer.get(10, TimeUnit.SECONDS);
            assertEquals(201, response.status());
            assertEquals("0", response.header("content-length"), "a head that ended the stream has no body");
        }
    }

    @Test
    void trailersReachAnHttp11ClientThatAskedForThemAndNoOtherOne() throws Exception {
        try (H2Server upstream = H2Server.start(); ProxyHarness proxy = proxy(upstream)) {
            H2Server.Conn conn = null;
            for (boolean asks : new boolean[] {true, false}) {
                CompletableFuture<RawHttp.Response> answer = CompletableFuture.supplyAsync(() -> {
                    try (RawHttp client = new RawHttp(proxy.port())) {
                        return client.send("GET /t HTTP/1.1\r\nHost: x\r\n" + (asks ? "TE: trailers\r\n" : "") + "\r\n").read(false);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                if (conn == null) {
                    conn = upstream.accept();
                }
                H2Server.Request request = conn.request();
                assertEquals(asks ? "trailers" : null, request.field("te"), "TE: trailers is kept toward h2, nothing else");
                conn.frame(H2Server.HEADERS, H2Server.END_HEADERS, request.stream(), conn.head(200));
                conn.frame(H2Server.DATA, 0, request.stream(), "body".getBytes(StandardCharsets.US_ASCII));
                conn.frame(H2Server.HEADERS, H2Server.END_HEADERS | H2Server.END_STREAM, request.stream(),
                        conn.trailers("grpc-status", "0", "x-checksum", "abc", "content-length", "99"));
                RawHttp.Response response = answer.get(10, TimeUnit.SECONDS);
                assertEquals("body", response.bodyText());
                assertEquals("chunked", response.header("transfer-encoding"));
                if (asks) {
                    assertEquals(2, response.trailers.size(), "content-length may not be a trailer");
                    assertEquals("grpc-status", response.trailers.get(0)[0]);
                    assertEquals("0", response.trailers.get(0)[1]);
                    assertEquals("x-checksum", response.trailers.get(1)[0]);
                } else {
                    assertTrue(response.trailers.isEmpty());
                }
            }
        }
    }

    @Test
    void trailersReachAnH2ClientAsATrailerBlock() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeFalse(TestTls.ON, "H2Client speaks h2c");
        try (H2Server upstream = H2Server.start(); ProxyHarness proxy = proxy(upstream);
             H2Client client = H2Client.connect(proxy.port())) {
            int stream = client.request("POST", "/pkg.Svc/Call", "abc".getBytes(StandardCharsets.US_ASCII),
                    "te", "trailers", "content-type", "application/grpc");
            H2Server.Conn conn = upstream.accept();
            H2Server.Request request = conn.request();
            assertEquals("trailers", request.field("te"));
            assertEquals("application/grpc", request.field("content-type"));
            assertEquals("abc", new String(request.body(), StandardCharsets.US_ASCII));
            conn.frame(H2Server.HEADERS, H2Server.END_HEADERS, request.stream(), conn.head(200, "content-type", "application/grpc"));
            conn.frame(H2Server.DATA, 0, request.stream(), "reply".getBytes(StandardCharsets.US_ASCII));
            conn.frame(H2Server.HEADERS, H2Server.END_HEADERS | H2Server.END_STREAM, request.stream(),
                    conn.trailers("grpc-status", "0", "grpc-message", "fine"));
            H2Client.Response response = client.response(stream);
            assertEquals(200, response.status());
            assertEquals("reply", response.bodyText());
            assertEquals("0", response.headers().get("grpc-status"));
            assertEquals("fine", response.headers().get("grpc-message"));
            // The trailers came as a HEADERS frame of their own, after the DATA, ending the stream.
            H2Client.Frame last = client.seen().get(client.seen().size() - 1);
            assertEquals(H2Client.HEADERS, last.type());
            assertEquals(H2Client.END_STREAM, last.flags() & H2Client.END_STREAM);
        }
    }

    @Test
    void streamsPastAGoAwayAreSentAgainOnANewConnection() throws Exception {
        try (H2Server upstream = H2Server.start(); ProxyHarness proxy = proxy(upstream)) {
            ExecutorService clients = Executors.newFixedThreadPool(2);
            Future<String> first = clients.submit(() -> get(proxy, "/one"));
            H2Server.Conn conn = upstream.accept();
            H2Server.Request one = conn.request();
            Future<String> second = clients.submit(() -> get(proxy, "/two"));
            H2Server.Request two = conn.request();
            assertEquals("/two", two.field(":path"));
            // The server will finish the first and has not processed the second.
            conn.goAway(one.stream(), NO_ERROR);
            conn.respond(one.stream(), 200, "one");
            assertEquals("200 one", first.get(10, TimeUnit.SECONDS));
            H2Server.Conn next = upstream.accept();
            H2Server.Request again = next.request();
            assertEquals("/two", again.field(":path"));
            next.respond(again.stream(), 200, "two");
            assertEquals("200 two", second.get(10, TimeUnit.SECONDS));
            assertTrue(conn.closedByPeer(), "the connection that went away closes once its last stream is done");
            clients.shutdown();
        }
    }

    @Test
    void aRefusedStreamIsSentAgainWhateverItsMethod() throws Exception {
        try (H2Server upstream = H2Server.start(); ProxyHarness proxy = proxy(upstream)) {
            CompletableFuture<RawHttp.Response> answer = exchange(proxy, "POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
            H2Server.Conn conn = upstream.accept();
            H2Server.Request request = conn.request();
            conn.reset(request.stream(), REFUSED_STREAM);
            H2Server.Request again = conn.request();
            assertEquals("POST", again.field(":method"));
            assertTrue(again.stream() > request.stream());
            conn.respond(again.stream(), 200, "done");
            assertEquals(200, answer.get(10, TimeUnit.SECONDS).status());
        }
    }

    @Test
    void aMalformedResponseIs502AndTheNextRequestIsServed() throws Exception {
        try (H2Server upstream = H2Server.start(); ProxyHarness proxy = proxy(upstream)) {
            ExecutorService client = Executors.newSingleThreadExecutor();
            Future<String> bad = client.submit(() -> get(proxy, "/bad"));
            H2Server.Conn conn = upstream.accept();
            H2Server.Request request = conn.request();
            // A connection-specific field: malformed in HTTP/2 (RFC 9113 §8.2.2). Written by hand:
            // an HPACK encoder leaves it out.
            conn.frame(H2Server.HEADERS, H2Server.END_HEADERS | H2Server.END_STREAM, request.stream(),
                    H2Client.literalBlock(":status", "200", "connection", "close"));
            assertTrue(bad.get(10, TimeUnit.SECONDS).startsWith("502 "));
            H2Server.Frame reset = conn.until(H2Server.RST_STREAM);
            assertEquals(request.stream(), reset.stream());
            assertEquals(PROTOCOL_ERROR, reset.errorCode());
            Future<String> good = client.submit(() -> get(proxy, "/good"));
            H2Server.Request next = conn.request();
            conn.respond(next.stream(), 200, "ok");
            assertEquals("200 ok", good.get(10, TimeUnit.SECONDS));
            client.shutdown();
        }
    }

    @Test
    void dataBeyondTheContentLengthNeverReachesTheClientAsWhole() throws Exception {
        try (H2Server upstream = H2Server.start(); ProxyHarness proxy = proxy(upstream)) {
            CompletableFuture<Boolean> cutShort = CompletableFuture.supplyAsync(() -> {
                try (RawHttp client = new RawHttp(proxy.port())) {
                    client.send("GET /x HTTP/1.1\r\nHost: x\r\n\r\n");
                    RawHttp.Response head = client.readHead();
                    assertEquals("4", head.header("content-length"));
                    try {
                        client.bodyStream(4).readAllBytes();
                        return false;
                    } catch (java.io.EOFException closedFirst) {
                        return true;
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            H2Server.Conn conn = upstream.accept();
            H2Server.Request request = conn.request();
            conn.frame(H2Server.HEADERS, H2Server.END_HEADERS, request.stream(), conn.head(200, "content-length", "4"));
            conn.frame(H2Server.DATA, H2Server.END_STREAM, request.stream(), "too long".getBytes(StandardCharsets.US_ASCII));
            assertTrue(cutShort.get(10, TimeUnit.SECONDS), "the client's connection closed before a whole body");
        }
    }

    @Test
    void theServersStreamLimitOpensAnotherConnection() throws Exception {
        try (H2Server upstream = H2Server.start(); ProxyHarness proxy = proxy(upstream)) {
            ExecutorService clients = Executors.newFixedThreadPool(2);
            Future<String> first = clients.submit(() -> get(proxy, "/one"));
            H2Server.Conn conn = upstream.accept(H2Server.SETTINGS_MAX_CONCURRENT_STREAMS, 1);
            H2Server.Request one = conn.request();
            conn.awaitSettingsAck();
            Future<String> second = clients.submit(() -> get(proxy, "/two"));
            // The first stream is still open and the server takes one at a time: a second connection.
            H2Server.Conn other = upstream.accept(H2Server.SETTINGS_MAX_CONCURRENT_STREAMS, 1);
            H2Server.Request two = other.request();
            assertEquals("/two", two.field(":path"));
            other.respond(two.stream(), 200, "two");
            conn.respond(one.stream(), 200, "one");
            assertEquals("200 one", first.get(10, TimeUnit.SECONDS));
            assertEquals("200 two", second.get(10, TimeUnit.SECONDS));
            clients.shutdown();
        }
    }

    @Test
    void anIdleConnectionAnswersThePeersPing() throws Exception {
        try (H2Server upstream = H2Server.start(); ProxyHarness proxy = proxy(upstream)) {
            CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> {
                try {
                    return get(proxy, "/one");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            H2Server.Conn conn = upstream.accept();
            H2Server.Request one = conn.request();
            conn.respond(one.stream(), 200, "one");
            assertEquals("200 one", first.get(10, TimeUnit.SECONDS));
            conn.frame(H2Server.PING, 0, 0, new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
            H2Server.Frame ack = conn.until(H2Server.PING);
            assertEquals(H2Server.ACK, ack.flags());
            assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, ack.payload());
        }
    }

    @Test
    void aConnectionErrorOfTheServerFailsItsStreamsAnd502sThem() throws Exception {
        try (H2Server upstream = H2Server.start(); ProxyHarness proxy = proxy(upstream)) {
            ExecutorService client = Executors.newSingleThreadExecutor();
            Future<String> answer = client.submit(() -> get(proxy, "/x"));
            H2Server.Conn conn = upstream.accept();
            H2Server.Request request = conn.request();
            // DATA on a stream we never opened: a connection error (PROTOCOL_ERROR).
            conn.frame(H2Server.DATA, 0, request.stream() + 2, new byte[] {1});
            H2Server.Frame goAway = conn.until(H2Server.GOAWAY);
            assertEquals(PROTOCOL_ERROR, goAway.errorCode());
            assertTrue(conn.closedByPeer());
            assertTrue(answer.get(10, TimeUnit.SECONDS).startsWith("502 "));
            assertFalse(answer.get().contains("Exception"));
            client.shutdown();
        }
    }

    /**
     * HEAD's answer, a 304, a 204: no content, so the response is whole with its head (the stream
     * is then reset), and any DATA the server sends is dropped, never read by the client as its
     * next response.
     */
    @Test
    void dataOnAResponseWithoutContentNeverReachesTheClient() throws Exception {
        String injected = "HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\ninjected";
        String[][] cases = {
                {"HEAD /first HTTP/1.1\r\nHost: x\r\n\r\n", "200", "content-length", "20"},
                {"GET /first HTTP/1.1\r\nHost: x\r\nIf-None-Match: \"a\"\r\n\r\n", "304", "etag", "\"a\""},
                {"DELETE /first HTTP/1.1\r\nHost: x\r\n\r\n", "204", "x-done", "yes"},
        };
        for (String[] each : cases) {
            try (H2Server upstream = H2Server.start(); ProxyHarness proxy = proxy(upstream)) {
                boolean head = each[0].startsWith("HEAD");
                int status = Integer.parseInt(each[1]);
                CompletableFuture<String> second = CompletableFuture.supplyAsync(() -> {
                    try (RawHttp client = new RawHttp(proxy.port())) {
                        client.send(each[0]).read(head);
                        return client.send("GET /second HTTP/1.1\r\nHost: x\r\n\r\n").read(false).bodyText();
                    } catch (Exception e) {
                        return "closed: " + e;
                    }
                });
                H2Server.Conn conn = upstream.accept();
                H2Server.Request request = conn.request();
                conn.frame(H2Server.HEADERS, H2Server.END_HEADERS, request.stream(), conn.head(status, each[2], each[3]));
                conn.frame(H2Server.DATA, H2Server.END_STREAM, request.stream(), injected.getBytes(StandardCharsets.US_ASCII));
                // The response ended with its head: the stream is let go, the DATA dropped, and the
                // client's next request gets the server's next answer.
                assertEquals(request.stream(), conn.until(H2Server.RST_STREAM).stream());
                H2Server.Request next = conn.request();
                assertEquals("/second", next.field(":path"));
                conn.respond(next.stream(), 200, "real", "content-length", "4");
                assertEquals("real", second.get(10, TimeUnit.SECONDS), "after a " + each[1]);
            }
        }
    }

    @Test
    void a304ThatAnnouncesALengthAndCarriesNoDataIsRelayed() throws Exception {
        try (H2Server upstream = H2Server.start(); ProxyHarness proxy = proxy(upstream)) {
            CompletableFuture<RawHttp.Response> answer = exchange(proxy, "GET /r HTTP/1.1\r\nHost: x\r\nIf-None-Match: \"v1\"\r\n\r\n");
            H2Server.Conn conn = upstream.accept();
            H2Server.Request request = conn.request();
            conn.frame(H2Server.HEADERS, H2Server.END_HEADERS | H2Server.END_STREAM, request.stream(),
                    conn.head(304, "etag", "\"v1\"", "content-length", "1234"));
            RawHttp.Response response = answer.get(10, TimeUnit.SECONDS);
            assertEquals(304, response.status());
            assertEquals("\"v1\"", response.header("etag"));
        }
    }

    @Test
    void aPseudoHeaderInTrailersIsMalformed() throws Exception {
        try (H2Server upstream = H2Server.start(); ProxyHarness proxy = proxy(upstream)) {
            CompletableFuture<Boolean> cut = CompletableFuture.supplyAsync(() -> {
                try (RawHttp client = new RawHttp(proxy.port())) {
                    client.send("GET /t HTTP/1.1\r\nHost: x\r\nTE: trailers\r\n\r\n").read(false);
                    return false;
                } catch (Exception e) {
                    return true;
                }
            });
            H2Server.Conn conn = upstream.accept();
            H2Server.Request request = conn.request();
            conn.frame(H2Server.HEADERS, H2Server.END_HEADERS, request.stream(), conn.head(200));
            conn.frame(H2Server.DATA, 0, request.stream(), "body".getBytes(StandardCharsets.US_ASCII));
            conn.frame(H2Server.HEADERS, H2Server.END_HEADERS | H2Server.END_STREAM, request.stream(),
                    H2Client.literalBlock(":status", "200", "grpc-status", "0"));
            assertEquals(PROTOCOL_ERROR, conn.until(H2Server.RST_STREAM).errorCode());
            assertTrue(cut.get(10, TimeUnit.SECONDS), "a response that went wrong after its head is cut, not completed");
        }
    }
}
