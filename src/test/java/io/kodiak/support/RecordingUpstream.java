package io.kodiak.support;

import org.eclipse.jetty.http.HttpCompliance;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.http.HttpVersion;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;

/**
 * An upstream that records exactly what reached it, read by a strict reference parser: Jetty's
 * {@link HttpParser} in RFC 9110 compliance mode. Each complete request is kept as the parser saw
 * it (request line, fields, body) and answered by {@code responder}; every byte of every
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
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        threads.execute(this::acceptLoop);
    }

    public String url(String path) {
        return "http://127.0.0.1:" + server.getLocalPort() + path;
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
            Handler handler = new Handler(out);
            HttpParser parser = new HttpParser(handler, 64 * 1024, HttpCompliance.RFC9110);
            byte[] bytes = new byte[8192];
            for (int n; (n = in.read(bytes)) != -1; ) {
                synchronized (log) {
                    log.write(bytes, 0, n);
                }
                ByteBuffer buffer = ByteBuffer.wrap(bytes, 0, n);
                while (!handler.failed) {
                    int before = buffer.position();
                    parser.parseNext(buffer);
                    if (parser.isState(HttpParser.State.END)) {
                        parser.reset();
                    } else if (!buffer.hasRemaining() || buffer.position() == before) {
                        break;
                    }
                }
                if (handler.failed) {
                    return;
                }
            }
        } catch (IOException ignored) {
            // the proxy closed its side
        }
    }

    /** Collects one request at a time from the parser's callbacks, and answers it once complete. */
    private final class Handler implements HttpParser.RequestHandler {
        private final OutputStream out;
        private String method;
        private String target;
        private String version;
        private List<String[]> headers = new ArrayList<>();
        private ByteArrayOutputStream body = new ByteArrayOutputStream();
        private boolean failed;

        Handler(OutputStream out) {
            this.out = out;
        }

        @Override
        public void startRequest(String method, String target, HttpVersion version) {
            this.method = method;
            this.target = target;
            this.version = version.asString();
            headers = new ArrayList<>();
            body = new ByteArrayOutputStream();
        }

        @Override
        public void parsedHeader(HttpField field) {
            headers.add(new String[]{field.getName().toLowerCase(Locale.ROOT), field.getValue()});
        }

        @Override
        public boolean headerComplete() {
            return false;
        }

        @Override
        public boolean content(ByteBuffer item) {
            byte[] bytes = new byte[item.remaining()];
            item.get(bytes);
            body.writeBytes(bytes);
            return false;
        }

        @Override
        public boolean contentComplete() {
            return false;
        }

        @Override
        public boolean messageComplete() {
            Received request = new Received(method, target, version, headers, body.toString(StandardCharsets.ISO_8859_1));
            received.add(request);
            try {
                out.write(responder.apply(request).getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
            } catch (IOException e) {
                failed = true;
            }
            return true;
        }

        @Override
        public void earlyEOF() {
        }

        @Override
        public void badMessage(HttpException failure) {
            violations.add(failure.getReason());
            failed = true;
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        threads.shutdownNow();
    }
}
