package io.kodiak.h2.upstream;

import io.kodiak.support.Await;
import io.kodiak.support.H2Server;
import io.kodiak.support.OnLoop;
import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import io.kodiak.transport.LoopMemoryManager;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The loop's pooled buffers around h2 upstream connections: each read buffer goes back to its
 * pool once its bytes are taken, and a DATA piece of a response that breaks its content-length is
 * given back too. Counted by the loop memory manager (one loop, so one pool).
 */
class Http2UpstreamBuffersTest {

    private static ProxyHarness proxy(H2Server h2) throws Exception {
        return ProxyHarness.start("""
                proxy.listener.selector-threads = 1
                proxy.buffers.memory-manager = "loop"
                proxy.upstreams { h2 { protocol = "h2", servers = [ "%s" ], retry { attempts = 1 } } }
                proxy.routes = [ { prefix = "/", upstream = "http://h2/" } ]
                """.formatted(h2.url()));
    }

    private static long outstanding(ProxyHarness proxy) throws Exception {
        LoopMemoryManager memory = (LoopMemoryManager) proxy.kodiak().memoryManager();
        return OnLoop.call(proxy.kodiak().loops().get(0), memory::outstanding);
    }

    /** Answers every request on the first connection with {@code answer}, until the test ends. */
    private interface Answer {
        void to(H2Server.Conn conn, int stream) throws Exception;
    }

    private static void serve(H2Server h2, Answer answer) {
        Thread server = new Thread(() -> {
            try (H2Server.Conn conn = h2.accept()) {
                while (true) {
                    answer.to(conn, conn.request().stream());
                }
            } catch (Exception closed) {
                // the test is over
            }
        }, "h2-upstream");
        server.setDaemon(true);
        server.start();
    }

    private static void get(ProxyHarness proxy, RawHttp client) throws Exception {
        client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read(false);
    }

    @Test
    void readBuffersGoBackToTheLoopsPool() throws Exception {
        try (H2Server h2 = H2Server.start(); ProxyHarness proxy = proxy(h2)) {
            serve(h2, (conn, stream) -> conn.respond(stream, 200, "hello", "content-length", "5"));
            try (RawHttp client = new RawHttp(proxy.port())) {
                for (int i = 0; i < 20; i++) {
                    get(proxy, client);
                }
                long before = outstanding(proxy);
                for (int i = 0; i < 200; i++) {
                    get(proxy, client);
                }
                long after = outstanding(proxy);
                assertTrue(after - before < 20, "buffers outstanding grew by " + (after - before) + " over 200 requests");
            }
        }
    }

    @Test
    void aLastDataShorterThanTheContentLengthIsGivenBack() throws Exception {
        try (H2Server h2 = H2Server.start(); ProxyHarness proxy = proxy(h2)) {
            serve(h2, (conn, stream) -> {
                conn.frame(H2Server.HEADERS, H2Server.END_HEADERS, stream, conn.head(200, "content-length", "10"));
                conn.frame(H2Server.DATA, H2Server.END_STREAM, stream, "short".getBytes(StandardCharsets.US_ASCII));
            });
            for (int i = 0; i < 5; i++) {
                cutShort(proxy);
            }
            long before = outstanding(proxy);
            for (int i = 0; i < 50; i++) {
                cutShort(proxy);
            }
            Await.await(() -> quietly(proxy) <= before, () -> "buffers outstanding: " + quietly(proxy) + ", were " + before);
        }
    }

    private static long quietly(ProxyHarness proxy) {
        try {
            return outstanding(proxy);
        } catch (Exception e) {
            return Long.MAX_VALUE;
        }
    }

    /** A GET whose response is cut (its head said 10 bytes, 5 came): the client sees the close. */
    private static void cutShort(ProxyHarness proxy) throws Exception {
        try (RawHttp client = new RawHttp(proxy.port())) {
            client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read(false);
        } catch (java.io.IOException cut) {
            // the response is cut: what this test provokes
        }
    }
}
