package io.kodiak.upstream;

import io.kodiak.support.GroupServer;
import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

import static io.kodiak.support.Await.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A server of a group that answers garbage, or cuts its responses short: the group's rules keep
 * clients from it (found by bin/bench.sh faults). Plain only: the misbehaving server is a raw socket.
 */
class MisbehavingServerTest {
    private ProxyHarness proxy;
    private GroupServer good;
    private RawServer bad;

    @AfterEach
    void stop() throws IOException {
        if (proxy != null) {
            proxy.close();
        }
        if (good != null) {
            good.close();
        }
        if (bad != null) {
            bad.close();
        }
    }

    /** Answers every request on its connection with {@code answer}, then closes it. */
    private static final class RawServer implements AutoCloseable {
        final ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        final AtomicInteger requests = new AtomicInteger();

        RawServer(String answer) throws IOException {
            Thread thread = new Thread(() -> {
                while (!socket.isClosed()) {
                    try (Socket connection = socket.accept()) {
                        InputStream in = connection.getInputStream();
                        StringBuilder head = new StringBuilder();
                        while (head.indexOf("\r\n\r\n") < 0) {
                            int b = in.read();
                            if (b < 0) {
                                break;
                            }
                            head.append((char) b);
                        }
                        requests.incrementAndGet();
                        connection.getOutputStream().write(answer.getBytes(StandardCharsets.ISO_8859_1));
                        connection.getOutputStream().flush();
                    } catch (IOException closed) {
                        // the test ends
                    }
                }
            }, "raw-server");
            thread.setDaemon(true);
            thread.start();
        }

        String url() {
            return "http://127.0.0.1:" + socket.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    private void start(String groupSettings) throws IOException {
        good = new GroupServer("good", "/health");
        proxy = ProxyHarness.start("proxy.upstreams.app.servers = [ \"" + bad.url() + "\", \"" + good.url() + "\" ]\n"
                + groupSettings + "proxy.routes = [ { prefix = \"/\", upstream = \"http://app/\" } ]\n");
    }

    private int get(String path) throws IOException {
        try (RawHttp client = new RawHttp(new Socket("127.0.0.1", proxy.port()))) {
            client.send("GET " + path + " HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
            return client.read().status();
        }
    }

    @Test
    void aGetThatMeetsGarbageGoesToAnotherServerUnderInvalidResponse() throws Exception {
        bad = new RawServer("this is not HTTP\r\n\r\n");
        start("proxy.upstreams.app.retry { on = [\"connect-failure\", \"reset\", \"invalid-response\"] }\n"
                + "proxy.upstreams.app.passive { max-fails = 0 }\n");
        for (int i = 0; i < 4; i++) {
            assertEquals(200, get("/g" + i));
        }
        assertTrue(bad.requests.get() >= 1, "the garbage server was tried");
        assertEquals(4, good.received().size(), "every GET was answered by the good server");
    }

    @Test
    void withoutInvalidResponseTheGarbageIsA502() throws Exception {
        bad = new RawServer("this is not HTTP\r\n\r\n");
        start("proxy.upstreams.app.passive { max-fails = 0 }\n");
        int bad502 = 0;
        for (int i = 0; i < 4; i++) {
            bad502 += get("/g" + i) == 502 ? 1 : 0;
        }
        assertEquals(2, bad502, "round-robin: every other GET met the garbage");
    }

    @Test
    void aServerThatCutsItsResponsesShortIsTakenOutByPassiveHealth() throws Exception {
        bad = new RawServer("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly ten b");
        start("proxy.upstreams.app.passive { max-fails = 2, fail-timeout = 60s }\n");
        UpstreamServer cutting = proxy.kodiak().upstreams().groups().iterator().next().servers().get(0);
        for (int i = 0; cutting.status() == UpstreamServer.Status.UP && i < 10; i++) {
            try (RawHttp client = new RawHttp(new Socket("127.0.0.1", proxy.port()))) {
                client.send("GET /c" + i + " HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
                client.drainedToTheEnd();
            }
        }
        assertEquals(2, bad.requests.get(), "two cut responses were enough");
        await(() -> cutting.status() == UpstreamServer.Status.EJECTED, "the cutting server to be ejected");
        for (int i = 0; i < 4; i++) {
            assertEquals(200, get("/after" + i));
        }
        assertEquals(2, bad.requests.get(), "no request reached it while ejected");
    }
}
