package io.kodiak.support;

import org.eclipse.jetty.http.HttpCompliance;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;

/**
 * An upstream that records exactly what reached it, read by a strict reference parser: Jetty's
 * {@link org.eclipse.jetty.http.HttpParser} in RFC 9110 compliance mode. Each complete request is kept as the parser saw
 * it ({@link StrictParser}: request line, fields, body) and answered by {@code responder}; every byte of every
 * connection is kept too, and anything Jetty refuses is kept as a violation. A test can so assert
 * both that the request arrived as meant and that nothing else did: no second request smuggled in
 * a body, no raw control byte, no framing another parser would read differently.
 */
public final class RecordingUpstream implements AutoCloseable {
    /** Answers every request with 200 and its own body back ("ok" when it has none). */
    public static final Function<Received, String> ECHO = r -> {
        String body = r.body().isEmpty() ? "ok" : r.body();
        return "HTTP/1.1 200 OK\r\nContent-Length: " + body.getBytes(StandardCharsets.ISO_8859_1).length
                + "\r\n\r\n" + body;
    };

    /** One request as the reference parser read it; header names lower-cased. */
    public record Received(String method, String target, String version, List<String[]> headers, String body) {
        public String header(String name) {
            for (String[] h : headers) {
                if (h[0].equals(name.toLowerCase(Locale.ROOT))) {
                    return h[1];
                }
            }
            return null;
        }

        public int count(String name) {
            int n = 0;
            for (String[] h : headers) {
                if (h[0].equals(name.toLowerCase(Locale.ROOT))) {
                    n++;
                }
            }
            return n;
        }
    }

    private final ServerSocket server;
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final Function<Received, String> responder;
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final List<String> violations = new CopyOnWriteArrayList<>();
    private final List<ByteArrayOutputStream> raw = new CopyOnWriteArrayList<>();
    private final java.util.concurrent.atomic.AtomicInteger open = new java.util.concurrent.atomic.AtomicInteger();

    public RecordingUpstream(Function<Received, String> responder) throws IOException {
        this.responder = responder;
        this.server = TestTls.listen(50);
        threads.execute(this::acceptLoop);
    }

    public String url(String path) {
        return TestTls.scheme() + "://127.0.0.1:" + server.getLocalPort() + path;
    }

    /** Requests received so far, in order of completion. */
    public List<Received> received() {
        return received;
    }

    /** What the reference parser refused (empty when everything forwarded was valid HTTP/1.1). */
    public List<String> violations() {
        return violations;
    }

    /** Every byte received, over all connections, as ISO-8859-1 text. */
    public String rawBytes() {
        StringBuilder all = new StringBuilder();
        for (ByteArrayOutputStream connection : raw) {
            synchronized (connection) {
                all.append(connection.toString(StandardCharsets.ISO_8859_1));
            }
        }
        return all.toString();
    }

    /**
     * Connections accepted and not yet closed. One the proxy closed counts as closed only after
     * every byte it carried was parsed and recorded, so awaiting zero is awaiting everything sent.
     */
    public int openConnections() {
        return open.get();
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                open.incrementAndGet();
                threads.execute(() -> {
                    try {
                        serve(socket);
                    } finally {
                        open.decrementAndGet();
                    }
                });
            } catch (IOException closed) {
                return;
            }
        }
    }

    private void serve(Socket socket) {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        raw.add(log);
        try (socket) {
            InputStream in = socket.getInputStream();
            OutputStream out = socket.getOutputStream();
            StrictParser parser = new StrictParser(HttpCompliance.RFC9110, (request, end) -> {
                received.add(request);
                try {
                    out.write(responder.apply(request).getBytes(StandardCharsets.ISO_8859_1));
                    out.flush();
                } catch (IOException closed) {
                    // the proxy went away before the answer; the request was received all the same
                }
            });
            byte[] bytes = new byte[8192];
            for (int n; (n = in.read(bytes)) != -1; ) {
                synchronized (log) {
                    log.write(bytes, 0, n);
                }
                if (!parser.feed(bytes, 0, n)) {
                    violations.add(parser.refusal());
                    return;
                }
            }
        } catch (IOException ignored) {
            // the proxy closed its side
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        threads.shutdownNow();
    }
}
