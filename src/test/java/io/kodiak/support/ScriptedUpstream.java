package io.kodiak.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * A raw-socket upstream for behaviours a real server will not produce on demand: canned bytes
 * per request (malformed, close-delimited, Upgrade-advertising), and closing a kept-alive
 * connection between requests. {@code script} maps the request number (0-based, over all
 * connections) to the exact response bytes; a null answer closes the connection unanswered, an
 * empty one leaves the request unanswered and waits for the next. {@link #PAUSE} in an answer
 * sends what precedes it as its own TCP segment and waits until the proxy has read it (by the kernel's
 * queues, {@link LoopbackQueues}), so the proxy sees the parts in separate reads by construction.
 * Requests must not carry a body.
 */
public final class ScriptedUpstream implements AutoCloseable {
    /** Marks a segment boundary in an answer: the next part is sent once the proxy has read this one. */
    public static final String PAUSE = "\u0001";
    /** Ends an answer: the connection closes once it is sent, whatever closeAfterEachResponse says. */
    public static final String CLOSE = "\u0002";

    private final ServerSocket server;
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final AtomicInteger requests = new AtomicInteger();
    private final AtomicInteger connections = new AtomicInteger();
    private final java.util.concurrent.CountDownLatch closedByProxy = new java.util.concurrent.CountDownLatch(1);
    private final IntFunction<String> script;
    private final boolean closeAfterEachResponse;

    public ScriptedUpstream(IntFunction<String> script, boolean closeAfterEachResponse) throws IOException {
        this.script = script;
        this.closeAfterEachResponse = closeAfterEachResponse;
        this.server = TestTls.listen(50);
        threads.execute(this::acceptLoop);
    }

    public String url(String path) {
        return TestTls.scheme() + "://127.0.0.1:" + server.getLocalPort() + path;
    }

    public int requests() {
        return requests.get();
    }

    public int connections() {
        return connections.get();
    }

    /** Waits until the proxy closes one of its connections to this upstream. */
    public boolean awaitClosedByProxy(long millis) throws InterruptedException {
        return closedByProxy.await(millis, java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                connections.incrementAndGet();
                threads.execute(() -> serve(socket));
            } catch (IOException closed) {
                return;
            }
        }
    }

    private void serve(Socket socket) {
        try (socket) {
            InputStream in = socket.getInputStream();
            OutputStream out = socket.getOutputStream();
            while (true) {
                if (!readHeader(in)) {
                    closedByProxy.countDown();
                    return;
                }
                String answer = script.apply(requests.getAndIncrement());
                if (answer == null) {
                    return;
                }
                boolean closeNow = answer.endsWith(CLOSE);
                if (closeNow) {
                    answer = answer.substring(0, answer.length() - CLOSE.length());
                }
                String[] segments = answer.split(PAUSE, -1);
                for (int i = 0; i < segments.length; i++) {
                    if (i > 0) {
                        awaitTakenByProxy(socket);
                    }
                    out.write(segments[i].getBytes(StandardCharsets.ISO_8859_1));
                    out.flush();
                }
                if (closeAfterEachResponse || closeNow) {
                    return;
                }
            }
        } catch (IOException ignored) {
            // the proxy closed its side: nothing to answer
        }
    }

    /**
     * Until the proxy has read everything sent on {@code socket}: the next part then arrives in a read of its
     * own. (A pause that only slept could be slept through by a loaded proxy, which then reads both parts at
     * once and the test tests nothing.) Without the kernel's queues to look at, a pause is all there is.
     */
    private static void awaitTakenByProxy(Socket socket) throws IOException {
        try {
            if (LoopbackQueues.available()) {
                LoopbackQueues.awaitTaken(socket.getLocalPort(), socket.getPort());
            } else {
                Thread.sleep(100);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    private static boolean readHeader(InputStream in) throws IOException {
        ByteArrayOutputStream header = new ByteArrayOutputStream();
        int matched = 0;
        for (int b; (b = in.read()) != -1; ) {
            header.write(b);
            matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
            if (matched == 4) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void close() throws IOException {
        server.close();
        threads.shutdownNow();
    }
}
