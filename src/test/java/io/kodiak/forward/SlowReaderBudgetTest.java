package io.kodiak.forward;

import io.kodiak.support.Await;
import io.kodiak.support.Patterns;
import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import io.kodiak.support.TestTls;
import io.kodiak.transport.WriteQueues;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Slow readers against the write-queue budget (proxy.buffers.max-queued): clients that stop
 * reading a large download each fill their connection's queue to max-queued-per-connection until
 * the queues together hold the budget; from then on each holds about one more read, a client
 * that keeps up is served in full, and every byte counted is released when the connections go.
 */
class SlowReaderBudgetTest {
    private static final int PER_CONNECTION = 2 << 20;
    /** One and a half full queues. */
    private static final long BUDGET = 3L * PER_CONNECTION / 2;
    private static final String ENDLESS = "/size/" + (1L << 40);

    private FloodUpstream upstream;
    private ProxyHarness proxy;
    private final List<Socket> slow = new ArrayList<>();

    @BeforeEach
    void start() throws IOException {
        upstream = new FloodUpstream();
    }

    /** {@code idleTimeout}: also how long a transfer may make no progress (listener.idle-timeout). */
    private WriteQueues startProxy(String idleTimeout) throws IOException {
        proxy = ProxyHarness.forUpstream(upstream.url(), "proxy.buffers.max-queued-per-connection = " + PER_CONNECTION
                + "\nproxy.buffers.max-queued = " + BUDGET + "\nproxy.listener.idle-timeout = " + idleTimeout + "\n");
        return proxy.kodiak().services().writeQueues();
    }

    @AfterEach
    void stop() throws IOException {
        for (Socket socket : slow) {
            socket.close();
        }
        if (proxy != null) {
            proxy.close();
        }
        upstream.close();
    }

    @Test
    void pastTheBudgetSlowReadersStopGrowingAndAFastClientIsServedInFull() throws Exception {
        WriteQueues queues = startProxy("60s");
        assertEquals(BUDGET, queues.budget());
        assertEquals(PER_CONNECTION, queues.perConnection());

        // Under the budget: a slow reader's queue fills to the per-connection cap (the kernel may
        // have taken a little more of it since).
        openSlowReader(ENDLESS);
        Await.await(() -> queues.waiting() == 1, "a connection waiting for room");
        assertTrue(queues.held() >= PER_CONNECTION * 3L / 4, "a full queue is counted: " + queues.held() + " bytes");
        assertEquals(0, queues.waitsUnderPressure());

        // Nine more at once, one of them for a finite body: together they fill the queues to the
        // budget, and from then on each holds about one more read (loopback delivers up to 64 KiB)
        // instead of filling its queue (without the budget: 9 full queues, over 18 MiB).
        int more = 9;
        long finite = 32L << 20;
        Socket laggard = openSlowReader("/size/" + finite);
        for (int i = 1; i < more; i++) {
            openSlowReader(ENDLESS);
        }
        Await.await(() -> queues.waiting() == 1 + more, (1 + more) + " connections waiting for room");
        long held = queues.held();
        assertTrue(held >= BUDGET * 3 / 4, "the budget was reached: held " + held);
        // A read is at most the socket's receive buffer (128 KiB by default on Linux), or the
        // transport's read size where the memory manager sets one (256 KiB under loop); with a
        // margin of 64 KiB each for the write that found the queue not empty.
        long read = Math.max(Math.max(128 * 1024, receiveBufferDefault()),
                proxy.kodiak().loops().transport().getReadBufferSize());
        long bound = BUDGET + (long) more * (read + 64 * 1024);
        assertTrue(held < bound, (1 + more) + " slow readers hold " + held + " bytes, over " + bound);
        assertTrue(queues.waitsUnderPressure() >= more - 1, "waits under pressure: " + queues.waitsUnderPressure());

        // A client that reads keeps being served, whole, while the budget is spent; once it has
        // its response, what it was sent is no longer counted (its connection still open).
        long length = 16L << 20;
        try (RawHttp client = new RawHttp(proxy.port())) {
            client.send("GET /size/" + length + " HTTP/1.1\r\nHost: a\r\n\r\n");
            RawHttp.Response response = client.readHead();
            assertEquals(200, response.status());
            try (InputStream body = client.bodyStream(length)) {
                assertEquals(Patterns.sha256Of(length), Patterns.sha256(body));
            }
            Await.await(() -> queues.held() <= held, "the fast client's bytes released");
        }

        // A slow reader that starts reading again is woken and gets its whole body.
        try (RawHttp reading = new RawHttp(laggard)) {
            assertEquals(200, reading.readHead().status());
            try (InputStream body = reading.bodyStream(finite)) {
                assertEquals(Patterns.sha256Of(finite), Patterns.sha256(body));
            }
        }

        // Every counted byte is released when the slow readers go, and without pressure a slow
        // reader's queue fills to the cap again.
        for (Socket socket : slow) {
            socket.close();
        }
        Await.await(() -> queues.waiting() == 0 && queues.held() == 0,
                () -> "no connection waiting and nothing held (waiting " + queues.waiting() + ", held " + queues.held() + ")");
        long pressureWaits = queues.waitsUnderPressure();
        openSlowReader(ENDLESS);
        Await.await(() -> queues.waiting() == 1, "a new slow reader waiting for room");
        assertTrue(queues.held() >= PER_CONNECTION * 3L / 4, "a full queue is counted again: " + queues.held() + " bytes");
        assertEquals(pressureWaits, queues.waitsUnderPressure());
    }

    @Test
    void anUpstreamThatStopsReadingAnUploadIsCountedAndReleased() throws Exception {
        // A short idle-timeout: over TLS the reset below was not always noticed before the stall
        // timeout ended the exchange (noticed while writing this test, not yet explained); what
        // is checked here is that the count is released when the exchange ends, however it ends.
        WriteQueues queues = startProxy("3s");
        long length = 1L << 30;
        try (RawHttp client = new RawHttp(proxy.port())) {
            client.send("POST /stall HTTP/1.1\r\nHost: a\r\nContent-Length: " + length + "\r\n\r\n");
            byte[] chunk = new byte[64 * 1024];
            // The client writes until the proxy, its upstream queue full, stops reading it.
            Thread writer = new Thread(() -> {
                try {
                    for (long sent = 0; sent < length; sent += chunk.length) {
                        client.send(chunk);
                    }
                } catch (IOException expected) {
                    // the proxy closes the connection once the upstream has gone
                }
            });
            writer.setDaemon(true);
            writer.start();
            // Read in the same poll: the stall timeout may end the exchange soon after. Over TLS the
            // queue holds encrypted bytes, a little more than the count: a margin.
            Await.await(() -> queues.waiting() == 1 && queues.held() >= PER_CONNECTION * 3L / 4,
                    () -> "the upstream connection waiting for room, a full queue counted (waiting "
                            + queues.waiting() + ", held " + queues.held() + ")");

            upstream.closeStalled();
            Await.await(() -> queues.waiting() == 0 && queues.held() == 0,
                    () -> "nothing held once the upstream has gone (waiting " + queues.waiting() + ", held " + queues.held() + ")");
        }
    }

    private static int receiveBufferDefault() throws IOException {
        try (Socket probe = new Socket()) {
            return probe.getReceiveBufferSize();
        }
    }

    /**
     * Interim responses go through the client's queue as a body does: an upstream that sends 1xx
     * after 1xx to a client that reads none fills that queue to its cap, then waits.
     */
    @Test
    void aFloodOfInterimResponsesWaitsForTheClientAsABodyDoes() throws Exception {
        WriteQueues queues = startProxy("60s");
        openSlowReader("/interim");
        Await.await(() -> queues.waiting() == 1, "the flood of 103s to wait for room in the client's queue");
        // The cap, plus what the last reads of the upstream brought (a few 64 KiB reads at most).
        assertTrue(queues.held() <= PER_CONNECTION + (512 << 10), "queued: " + queues.held() + " bytes");
    }

    private Socket openSlowReader(String path) throws IOException {
        Socket socket = TestTls.connectWithReceiveBuffer(proxy.port(), 4096);
        slow.add(socket);
        OutputStream out = socket.getOutputStream();
        out.write(("GET " + path + " HTTP/1.1\r\nHost: a\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        return socket;
    }

    /**
     * A raw upstream, a thread per connection: {@code GET /size/N} answers N pattern bytes (and
     * blocks in its writes when the proxy stops reading); {@code /stall} reads the request head and
     * then nothing, until {@link #closeStalled()}.
     */
    private static final class FloodUpstream implements AutoCloseable {
        private final ServerSocket server;
        private final List<Socket> accepted = new CopyOnWriteArrayList<>();
        private final List<Socket> stalled = new CopyOnWriteArrayList<>();
        private final List<Socket> stalledTls = new CopyOnWriteArrayList<>();

        FloodUpstream() throws IOException {
            // Plain, with TLS put over each accepted socket: the plain one can be reset at once.
            server = TestTls.listenPlain(0, 64);
            Thread acceptor = new Thread(this::acceptLoop, "flood-upstream");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        String url() {
            return TestTls.scheme() + "://127.0.0.1:" + server.getLocalPort() + "/";
        }

        /**
         * Resets the stalled connections (their plain sockets, under any TLS): an abortive close,
         * as a crashed upstream's. A TLS socket's own close did not always reach the proxy.
         */
        void closeStalled() throws IOException {
            for (Socket socket : stalled) {
                socket.setSoLinger(true, 0);
                socket.close();
            }
        }

        private void acceptLoop() {
            while (!server.isClosed()) {
                try {
                    Socket plain = server.accept();
                    accepted.add(plain);
                    Thread serving = new Thread(() -> serve(plain), "flood-upstream-connection");
                    serving.setDaemon(true);
                    serving.start();
                } catch (IOException closed) {
                    return;
                }
            }
        }

        private void serve(Socket plain) {
            try {
                Socket socket = TestTls.serverSide(plain);
                String path = requestPath(socket.getInputStream());
                if (path.startsWith("/stall")) {
                    // Both kept: a TLS socket left to the collector may close what it is layered on.
                    stalledTls.add(socket);
                    stalled.add(plain);
                    return;
                }
                if (path.startsWith("/interim")) {
                    // 103 after 103 (each with a 4 KiB field), for ever: blocks when the proxy stops reading.
                    byte[] hint = ("HTTP/1.1 103 Early Hints\r\nLink: </" + "a".repeat(4096) + ">; rel=preload\r\n\r\n")
                            .getBytes(StandardCharsets.ISO_8859_1);
                    OutputStream out = socket.getOutputStream();
                    while (true) {
                        out.write(hint);
                    }
                }
                long length = Long.parseLong(path.substring("/size/".length()));
                OutputStream out = socket.getOutputStream();
                out.write(("HTTP/1.1 200 OK\r\nContent-Length: " + length + "\r\nConnection: close\r\n\r\n")
                        .getBytes(StandardCharsets.ISO_8859_1));
                InputStream pattern = Patterns.stream(length);
                byte[] buffer = new byte[64 * 1024];
                for (int n; (n = pattern.read(buffer)) != -1; ) {
                    out.write(buffer, 0, n);
                }
                out.flush();
                socket.close();
            } catch (IOException | RuntimeException gone) {
                // the proxy closed the connection: its client went away
            }
        }

        private static String requestPath(InputStream in) throws IOException {
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            int matched = 0;
            while (matched < 4) {
                int b = in.read();
                if (b < 0) {
                    throw new IOException("closed before the end of the head");
                }
                head.write(b);
                matched = (b == '\r' && matched % 2 == 0) || (b == '\n' && matched % 2 == 1) ? matched + 1 : 0;
            }
            String requestLine = head.toString(StandardCharsets.ISO_8859_1).split("\r\n", 2)[0];
            return requestLine.split(" ")[1];
        }

        @Override
        public void close() throws IOException {
            server.close();
            for (Socket socket : accepted) {
                socket.close();
            }
        }
    }
}
