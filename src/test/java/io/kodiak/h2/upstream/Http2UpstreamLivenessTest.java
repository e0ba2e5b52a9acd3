package io.kodiak.h2.upstream;

import io.kodiak.support.Await;
import io.kodiak.support.H2Server;
import io.kodiak.support.OnLoop;
import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import io.kodiak.upstream.UpstreamGroup;
import io.kodiak.upstream.UpstreamServer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Nothing waits for ever toward an h2 upstream: a request waiting for a stream when a reload
 * retires its pool is served once a stream frees up, and a request body waiting for room held by
 * another stream goes on when that stream is reset.
 */
class Http2UpstreamLivenessTest {

    private static CompletableFuture<Integer> get(ProxyHarness proxy, String path) {
        return CompletableFuture.supplyAsync(() -> {
            try (RawHttp client = new RawHttp(proxy.port())) {
                return client.send("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n").read(false).status();
            } catch (Exception e) {
                return -1;
            }
        });
    }

    private static UpstreamServer server(ProxyHarness proxy) {
        for (UpstreamGroup group : proxy.kodiak().upstreams().groups()) {
            if (group.name().equals("h2")) {
                return group.servers().get(0);
            }
        }
        throw new IllegalStateException("no group h2");
    }

    private static String config(H2Server upstream, String connectTimeout) {
        return """
                proxy.listener.selector-threads = 1
                proxy.upstreams { h2 { protocol = "h2", servers = [ "%s" ], max-connections = 1,
                                       connect-timeout = %s, retry { attempts = 1 } } }
                proxy.routes = [ { prefix = "/", upstream = "http://h2/" } ]
                """.formatted(upstream.url(), connectTimeout);
    }

    @Test
    void aRequestWaitingForAStreamWhenAReloadRetiresThePoolIsServed() throws Exception {
        try (H2Server upstream = H2Server.start(); ProxyHarness proxy = ProxyHarness.start(config(upstream, "5s"))) {
            CompletableFuture<Integer> a = get(proxy, "/a");
            // One stream at a time, one connection at most: the second request waits for the first.
            H2Server.Conn first = upstream.accept(H2Server.SETTINGS_MAX_CONCURRENT_STREAMS, 1);
            H2Server.Request requestA = first.request();
            first.awaitSettingsAck();
            UpstreamServer before = server(proxy);
            CompletableFuture<Integer> b = get(proxy, "/b");
            Await.await(() -> before.inFlight() == 2, "the second request to wait for a stream");
            // The pool's settings change: the reload retires it, the waiting request stays with it.
            proxy.reload(config(upstream, "6s"));
            first.respond(requestA.stream(), 200, "a");
            assertEquals(200, a.get(10, TimeUnit.SECONDS).intValue());
            // The retired pool's connection closes with its last stream; the waiter gets a new one.
            assertTrue(first.closedByPeer());
            H2Server.Conn second = upstream.accept();
            H2Server.Request requestB = second.request();
            assertEquals("/b", requestB.field(":path"));
            second.respond(requestB.stream(), 200, "b");
            assertEquals(200, b.get(10, TimeUnit.SECONDS).intValue());
        }
    }

    /** The frames the proxy sends until HEADERS on {@code stream} (SETTINGS acked on the way, no window given). */
    private static void untilHeaders(H2Server.Conn conn, int stream) throws Exception {
        while (true) {
            H2Server.Frame frame = next(conn);
            if (frame.type() == H2Server.HEADERS && frame.stream() == stream) {
                return;
            }
        }
    }

    /** The DATA bytes on {@code stream} up to its END_STREAM. */
    private static long dataUntilEnd(H2Server.Conn conn, int stream) throws Exception {
        long data = 0;
        while (true) {
            H2Server.Frame frame = next(conn);
            if (frame.type() == H2Server.DATA && frame.stream() == stream) {
                data += frame.payload().length;
                if ((frame.flags() & H2Server.END_STREAM) != 0) {
                    return data;
                }
            }
        }
    }

    private static H2Server.Frame next(H2Server.Conn conn) throws Exception {
        H2Server.Frame frame = conn.readFrame();
        if (frame.type() == H2Server.SETTINGS && (frame.flags() & H2Server.ACK) == 0) {
            conn.frame(H2Server.SETTINGS, H2Server.ACK, 0, new byte[0]);
        }
        return frame;
    }

    private static CompletableFuture<Integer> post(ProxyHarness proxy, int length) {
        return CompletableFuture.supplyAsync(() -> {
            try (RawHttp client = new RawHttp(proxy.port())) {
                client.send("POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: " + length + "\r\n\r\n");
                client.send(new byte[length]);
                return client.read(false).status();
            } catch (Exception e) {
                return -1;
            }
        });
    }

    @Test
    void aBodyWaitingForRoomAnotherStreamHeldGoesOnWhenThatStreamIsReset() throws Exception {
        int body = 1 << 20;
        try (H2Server upstream = H2Server.start();
             ProxyHarness proxy = ProxyHarness.start("""
                     proxy.listener.selector-threads = 1
                     proxy.buffers.max-queued-per-connection = 64k
                     proxy.upstreams { h2 { protocol = "h2", servers = [ "%s" ], retry { attempts = 1 } } }
                     proxy.routes = [ { prefix = "/", upstream = "http://h2/" } ]
                     """.formatted(upstream.url()))) {
            CompletableFuture<Integer> a = post(proxy, body);
            // No window for any stream: request bodies queue in the proxy.
            try (H2Server.Conn conn = upstream.accept(H2Server.SETTINGS_INITIAL_WINDOW_SIZE, 0)) {
                untilHeaders(conn, 1);
                Http2Upstream h2 = proxy.kodiak().http2Upstream();
                Await.await(() -> queued(proxy, h2) >= 64 * 1024, "the first body to fill the connection's queue");
                CompletableFuture<Integer> b = post(proxy, body);
                untilHeaders(conn, 3);
                // Window for the second stream only: what it queued goes, and it then waits on the
                // connection's bound, which the first stream's queue holds.
                conn.frame(H2Server.WINDOW_UPDATE, 0, 3, ByteBuffer.allocate(4).putInt(16 << 20).array());
                conn.frame(H2Server.WINDOW_UPDATE, 0, 0, ByteBuffer.allocate(4).putInt(16 << 20).array());
                // The first stream is reset: its queue is dropped, and the second must hear there is room.
                conn.reset(1, 0x8);
                assertEquals(body, dataUntilEnd(conn, 3));
                conn.respond(3, 200, "");
                assertEquals(200, b.get(10, TimeUnit.SECONDS).intValue());
                assertEquals(502, a.get(10, TimeUnit.SECONDS).intValue());
            }
        }
    }

    private static long queued(ProxyHarness proxy, Http2Upstream h2) {
        try {
            return OnLoop.call(proxy.kodiak().loops().get(0), h2::queuedBytes);
        } catch (Exception e) {
            return -1;
        }
    }
}
