import io.grpc.CallOptions;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;

import java.io.BufferedInputStream;
import java.io.BufferedWriter;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The load of bin/bench.sh soak, and the classification of its failures afterwards.
 * <pre>
 *   SoakLoad run PORT TLS_PORT CA_PEM CALIBRATE_S SECONDS RATE OUT_DIR
 *       Every kind of traffic at once (Kind below), each by its own worker threads. First CALIBRATE_S
 *       seconds unpaced and not recorded (what the machine serves of each kind, while all run); then
 *       SECONDS paced at half of that (RATE auto), or RATE requests/s split by the kinds' weights.
 *       Every request or session is one line of OUT_DIR/requests.tsv: start and end (epoch ms), kind,
 *       id (sent as X-Soak-Id, so Kodiak's access log names it), outcome (ok, or a class such as
 *       status-502, io-EOFException, body-mismatch, grpc-UNAVAILABLE) and a detail. OUT_DIR/counts.tsv
 *       holds the counts so far (rewritten every 5 s, for the sampler). Bounded: stops by itself; a
 *       request gets at most 30 s.
 *   SoakLoad classify REQUESTS EVENTS ACCESS_LOG_DIR VICTIM OUT_DIR
 *       Each failure explained or not: explained only when the request went to the group the bench
 *       kills a server of, was in flight at a kill (start <= kill <= end; EVENTS lines "ms kill ..."),
 *       and Kodiak's access log names the killed server (VICTIM, host:port) among its upstreams.
 *       Writes OUT_DIR/failures.tsv (each failed request) and OUT_DIR/outcomes.tsv (a row per kind
 *       and one for all, as the report reads them).
 * </pre>
 * For taking a failure apart: -Dsoak.kinds=websocket,grpc runs only those kinds; -Dsoak.ws.url=ws://...
 * sends the WebSocket sessions elsewhere (straight to the backend, to compare); -Dsoak.workers.KIND=N
 * gives a kind N workers.
 */
public final class SoakLoad {
    static final int MIB = 1 << 20;
    static final byte[] PATTERN = new byte[MIB];
    static final Duration TIMEOUT = Duration.ofSeconds(30);

    static {
        for (int i = 0; i < MIB; i++) {
            PATTERN[i] = SoakBackend.pattern(i);
        }
    }

    /**
     * What the mix holds. weight: share of the requests when a fixed RATE is given; workers: threads
     * (enough for the slow kinds, which each hold one for seconds); group: routed to the three-server
     * group, whose server the bench kills (the others have backends of their own).
     */
    enum Kind {
        H1_KEEPALIVE("h1-keepalive", 30, 8, true),
        H1_NEW_CONNECTION("h1-new-connection", 10, 4, true),
        SLOW_READER("slow-reader", 3, 8, true),
        SLOW_SENDER("slow-sender", 3, 8, true),
        TLS_H1("tls-h1", 12, 4, true),
        TLS_H2("tls-h2", 12, 4, true),
        GRPC("grpc", 25, 4, false),
        WEBSOCKET("websocket", 5, 4, false);

        final String label;
        final int weight;
        final int workers;
        final boolean group;
        final AtomicLong nextSlot = new AtomicLong();
        volatile long intervalNanos; // 0: unpaced
        final LongAdder ok = new LongAdder();
        final LongAdder ko = new LongAdder();
        final LongAdder calibrated = new LongAdder();

        Kind(String label, int weight, int workers, boolean group) {
            this.label = label;
            this.weight = weight;
            this.workers = workers;
            this.group = group;
        }

        static Kind of(String label) {
            for (Kind k : values()) {
                if (k.label.equals(label)) {
                    return k;
                }
            }
            throw new IllegalArgumentException("no kind " + label);
        }
    }

    /** An outcome: "ok", or a failure class without spaces, and a detail. */
    record Outcome(String kind, String detail) {
        static final Outcome OK = new Outcome("ok", "");

        static Outcome fail(String kind, String detail) {
            return new Outcome(kind, detail.replaceAll("[\\t\\r\\n]+", " "));
        }

        static Outcome of(Throwable t) {
            if (t instanceof HttpTimeoutException || t instanceof java.net.SocketTimeoutException) {
                return fail("timeout", String.valueOf(t.getMessage()));
            }
            if (t instanceof StatusRuntimeException s) {
                return fail("grpc-" + s.getStatus().getCode(), String.valueOf(s.getStatus().getDescription()));
            }
            Throwable root = t;
            while (root.getCause() != null && root.getCause() != root && !(root instanceof IOException)) {
                root = root.getCause();
            }
            return fail("io-" + root.getClass().getSimpleName(), String.valueOf(root.getMessage()));
        }
    }

    private SoakLoad() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 8 && args[0].equals("run")) {
            new Run(args).go();
        } else if (args.length == 6 && args[0].equals("classify")) {
            classify(Path.of(args[1]), Path.of(args[2]), Path.of(args[3]), args[4], Path.of(args[5]));
        } else {
            System.err.println("usage: SoakLoad run PORT TLS_PORT CA_PEM CALIBRATE_S SECONDS RATE OUT_DIR"
                    + " | SoakLoad classify REQUESTS EVENTS ACCESS_LOG_DIR VICTIM OUT_DIR");
            System.exit(2);
        }
        System.exit(0);
    }

    /** A body size from 100 B to 1 MiB, uniform in its logarithm: mostly small, some large. */
    static int size(int max) {
        double lo = Math.log(100);
        return (int) Math.exp(lo + ThreadLocalRandom.current().nextDouble() * (Math.log(max) - lo));
    }

    static boolean isPattern(byte[] body, int n) {
        return body.length == n && Arrays.equals(body, 0, n, PATTERN, 0, n);
    }

    // ---- the load ----------------------------------------------------------------------------------------

    static final class Run {
        final int port;
        final int tlsPort;
        final Path caPem;
        final int calibrateSeconds;
        final int seconds;
        final String rate;
        final Path out;
        final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        final AtomicLong ids = new AtomicLong();
        volatile boolean recording;
        HttpClient plain;
        HttpClient tlsH1;
        HttpClient tlsH2;
        HttpClient ws;
        ManagedChannel grpc;

        Run(String[] a) {
            port = Integer.parseInt(a[1]);
            tlsPort = Integer.parseInt(a[2]);
            caPem = Path.of(a[3]);
            calibrateSeconds = Integer.parseInt(a[4]);
            seconds = Integer.parseInt(a[5]);
            rate = a[6];
            out = Path.of(a[7]);
        }

        void go() throws Exception {
            SSLContext tls = trusting(caPem);
            plain = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
            tlsH1 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(tls).connectTimeout(Duration.ofSeconds(5)).build();
            tlsH2 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).sslContext(tls).connectTimeout(Duration.ofSeconds(5)).build();
            ws = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            grpc = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
            Thread writer = new Thread(this::write, "writer");
            writer.setDaemon(true);
            writer.start();

            long calibrateEnd = System.currentTimeMillis() + calibrateSeconds * 1000L;
            long end = calibrateEnd + seconds * 1000L;
            List<Thread> threads = new ArrayList<>();
            // soak.kinds (a comma-separated list of kinds) runs only those: for taking a failure apart.
            Set<String> only = new HashSet<>(Arrays.asList(System.getProperty("soak.kinds", "").split(",")));
            only.remove("");
            for (Kind k : Kind.values()) {
                if (!only.isEmpty() && !only.contains(k.label)) {
                    continue;
                }
                for (int w = 0; w < Integer.getInteger("soak.workers." + k.label, k.workers); w++) {
                    Thread t = new Thread(() -> loop(k, calibrateEnd, end), k.label + "-" + w);
                    t.setDaemon(true);
                    threads.add(t);
                    t.start();
                }
            }
            Thread.sleep(Math.max(0, calibrateEnd - System.currentTimeMillis()));
            pace();
            recording = true;
            long nextCounts = 0;
            while (System.currentTimeMillis() < end) {
                if (System.currentTimeMillis() >= nextCounts) {
                    counts();
                    nextCounts = System.currentTimeMillis() + 5000;
                }
                Thread.sleep(200);
            }
            // Requests still running finish (each within its 30 s); then the last counts and lines.
            for (Thread t : threads) {
                t.join(45_000);
            }
            counts();
            lines.put("");
            writer.join(10_000);
            grpc.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            for (Kind k : Kind.values()) {
                System.out.printf(Locale.ROOT, "%-18s ok %8d  failed %6d%n", k.label, k.ok.sum(), k.ko.sum());
            }
        }

        /** Each kind's pace from the calibration: half its unpaced rate, or its share of a fixed rate. */
        void pace() {
            int weights = Arrays.stream(Kind.values()).mapToInt(k -> k.weight).sum();
            StringBuilder said = new StringBuilder("SoakLoad: calibration " + calibrateSeconds + " s; paced per second:");
            double total = 0;
            double measured = Math.max(1, calibrateSeconds / 2.0);
            for (Kind k : Kind.values()) {
                double perSecond = rate.equals("auto")
                        ? Math.max(0.2, k.calibrated.sum() / 2.0 / measured)
                        : Double.parseDouble(rate) * k.weight / weights;
                total += perSecond;
                k.intervalNanos = (long) (1e9 / perSecond);
                k.nextSlot.set(System.nanoTime());
                said.append(String.format(Locale.ROOT, " %s %.1f (unpaced %.1f)", k.label, perSecond,
                        k.calibrated.sum() / measured));
            }
            System.out.println(said + String.format(Locale.ROOT, "; total %.1f", total));
            try {
                Files.writeString(out.resolve("rate.txt"), String.format(Locale.ROOT, "%.1f%n", total));
            } catch (IOException ignored) {
                // only informative
            }
        }

        void loop(Kind k, long calibrateEnd, long end) {
            while (true) {
                long now = System.currentTimeMillis();
                if (now >= end) {
                    return;
                }
                if (now >= calibrateEnd) {
                    // Paced: each kind's requests start at its interval, whichever worker is free
                    // (a free worker waits for the next start; a start that finds all busy is late).
                    long interval = k.intervalNanos;
                    if (interval > 0) {
                        long slot = k.nextSlot.getAndUpdate(v -> Math.max(v, System.nanoTime()) + interval);
                        long wait = slot - System.nanoTime();
                        if (wait > 0) {
                            try {
                                TimeUnit.NANOSECONDS.sleep(wait);
                            } catch (InterruptedException e) {
                                return;
                            }
                        }
                        if (System.currentTimeMillis() >= end) {
                            return;
                        }
                    }
                }
                // The calibration's first half warms the JIT and the connections; its second half is counted.
                boolean record = recording;
                boolean counted = now >= calibrateEnd - calibrateSeconds * 500L;
                String id = k.label + "-" + ids.incrementAndGet();
                long start = System.currentTimeMillis();
                Outcome o;
                try {
                    o = once(k, id);
                } catch (Exception | AssertionError e) {
                    o = Outcome.of(e);
                }
                long done = System.currentTimeMillis();
                if (!record) {
                    if (counted) {
                        k.calibrated.increment();
                    }
                    continue;
                }
                (o == Outcome.OK ? k.ok : k.ko).increment();
                lines.add(start + "\t" + done + "\t" + k.label + "\t" + id + "\t" + o.kind() + "\t" + o.detail() + "\n");
            }
        }

        Outcome once(Kind k, String id) throws Exception {
            ThreadLocalRandom r = ThreadLocalRandom.current();
            return switch (k) {
                case H1_KEEPALIVE -> http(plain, "http", port, id, r.nextBoolean(), r.nextBoolean(), size(MIB), null);
                case TLS_H1 -> http(tlsH1, "https", tlsPort, id, r.nextBoolean(), r.nextBoolean(), size(MIB), null);
                case TLS_H2 -> http(tlsH2, "https", tlsPort, id, r.nextBoolean(), r.nextBoolean(), size(MIB), HttpClient.Version.HTTP_2);
                case H1_NEW_CONNECTION -> raw(id, r.nextBoolean(), r.nextBoolean(), size(MIB), false, false);
                case SLOW_READER -> raw(id, false, r.nextBoolean(), 256 * 1024 + r.nextInt(768 * 1024), true, false);
                case SLOW_SENDER -> raw(id, true, r.nextBoolean(), 64 * 1024 + r.nextInt(192 * 1024), false, true);
                case GRPC -> grpc(id, size(64 * 1024));
                case WEBSOCKET -> websocket(id);
            };
        }

        /** GET /bytes/N or POST /echo of N bytes, sized or chunked, through java.net.http. */
        Outcome http(HttpClient client, String scheme, int p, String id, boolean post, boolean chunked, int n,
                     HttpClient.Version want) throws Exception {
            String path = (post ? "/echo" : "/bytes/" + n) + (chunked ? "?chunked" : "");
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(scheme + "://127.0.0.1:" + p + path))
                    .timeout(TIMEOUT).header("X-Soak-Id", id);
            if (post) {
                // A publisher of unknown length: HTTP/1.1 sends it chunked.
                b.POST(chunked ? HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(PATTERN, 0, n))
                        : HttpRequest.BodyPublishers.ofByteArray(PATTERN, 0, n));
            }
            HttpResponse<byte[]> response = client.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
            if (response.statusCode() != 200) {
                return Outcome.fail("status-" + response.statusCode(), new String(response.body(), 0,
                        Math.min(200, response.body().length), StandardCharsets.ISO_8859_1));
            }
            if (want != null && response.version() != want) {
                return Outcome.fail("protocol-" + response.version(), "answered over " + response.version());
            }
            return isPattern(response.body(), n) ? Outcome.OK
                    : Outcome.fail("body-mismatch", response.body().length + " bytes, expected " + n);
        }

        /**
         * One request on a connection of its own (Connection: close): a new connection per request, or
         * a slow reader (small receive buffer, 8 KiB every 20 ms) or a slow sender (2 KiB every 10 ms).
         */
        Outcome raw(String id, boolean post, boolean chunked, int n, boolean slowRead, boolean slowSend) throws IOException {
            try (Socket s = new Socket()) {
                if (slowRead) {
                    s.setReceiveBufferSize(16 * 1024);
                }
                s.connect(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
                s.setSoTimeout((int) TIMEOUT.toMillis());
                s.setTcpNoDelay(true);
                OutputStream o = s.getOutputStream();
                StringBuilder head = new StringBuilder(post ? "POST /echo" : "GET /bytes/" + n);
                head.append(chunked && !post ? "?chunked" : "").append(" HTTP/1.1\r\nHost: soak\r\nX-Soak-Id: ").append(id)
                        .append("\r\nConnection: close\r\n");
                if (post) {
                    head.append(chunked ? "Transfer-Encoding: chunked\r\n" : "Content-Length: " + n + "\r\n");
                }
                o.write(head.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII));
                if (post) {
                    int piece = slowSend ? 2048 : 65536;
                    for (int off = 0; off < n; off += piece) {
                        int len = Math.min(piece, n - off);
                        if (chunked) {
                            o.write((Integer.toHexString(len) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                        }
                        o.write(PATTERN, off, len);
                        if (chunked) {
                            o.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                        }
                        if (slowSend) {
                            o.flush();
                            sleep(10);
                        }
                    }
                    if (chunked) {
                        o.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    }
                }
                o.flush();
                InputStream in = new BufferedInputStream(s.getInputStream(), 8192);
                Response r = Response.read(in, slowRead);
                if (r.status != 200) {
                    return Outcome.fail("status-" + r.status, new String(r.body, 0, Math.min(200, r.body.length), StandardCharsets.ISO_8859_1));
                }
                return isPattern(r.body, n) ? Outcome.OK : Outcome.fail("body-mismatch", r.body.length + " bytes, expected " + n);
            }
        }

        Outcome grpc(String id, int n) {
            Metadata headers = new Metadata();
            headers.put(Metadata.Key.of("x-soak-id", Metadata.ASCII_STRING_MARSHALLER), id);
            byte[] request = Arrays.copyOf(PATTERN, n);
            byte[] answer = ClientCalls.blockingUnaryCall(
                    ClientInterceptors.intercept(grpc, MetadataUtils.newAttachHeadersInterceptor(headers)),
                    GrpcEcho.UNARY, CallOptions.DEFAULT.withDeadlineAfter(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS), request);
            return Arrays.equals(request, answer) ? Outcome.OK : Outcome.fail("body-mismatch", answer.length + " bytes, expected " + n);
        }

        /** One session: open, five binary messages each echoed whole, 100 ms apart, then a close both ways. */
        Outcome websocket(String id) throws Exception {
            BlockingQueue<Object> got = new LinkedBlockingQueue<>();
            WebSocket.Listener listener = new WebSocket.Listener() {
                final ByteArrayOutputStream message = new ByteArrayOutputStream();

                @Override
                public CompletionStage<?> onBinary(WebSocket w, ByteBuffer data, boolean last) {
                    byte[] b = new byte[data.remaining()];
                    data.get(b);
                    message.writeBytes(b);
                    if (last) {
                        got.add(message.toByteArray());
                        message.reset();
                    }
                    w.request(1);
                    return null;
                }

                @Override
                public CompletionStage<?> onClose(WebSocket w, int code, String reason) {
                    got.add(code);
                    return null;
                }

                @Override
                public void onError(WebSocket w, Throwable error) {
                    got.add(error);
                }
            };
            WebSocket w = ws.newWebSocketBuilder().header("X-Soak-Id", id).connectTimeout(Duration.ofSeconds(5))
                    .buildAsync(URI.create(System.getProperty("soak.ws.url", "ws://127.0.0.1:" + port + "/ws/")), listener)
                    .get(30, TimeUnit.SECONDS);
            try {
                for (int i = 0; i < 5; i++) {
                    int n = size(64 * 1024);
                    w.sendBinary(ByteBuffer.wrap(PATTERN, 0, n), true).get(30, TimeUnit.SECONDS);
                    Object answer = got.poll(30, TimeUnit.SECONDS);
                    if (answer == null) {
                        return Outcome.fail("timeout", "no echo of message " + i + " (" + n + " bytes) within 30 s");
                    }
                    if (answer instanceof Throwable t) {
                        return Outcome.of(t);
                    }
                    if (!(answer instanceof byte[] b)) {
                        return Outcome.fail("ws-closed", "closed by the server with " + answer + " at message " + i);
                    }
                    if (!isPattern(b, n)) {
                        return Outcome.fail("body-mismatch", "message " + i + ": " + b.length + " bytes, expected " + n);
                    }
                    sleep(100);
                }
                w.sendClose(WebSocket.NORMAL_CLOSURE, "done").get(30, TimeUnit.SECONDS);
                Object closed = got.poll(30, TimeUnit.SECONDS);
                if (!(closed instanceof Integer code)) {
                    return closed == null ? Outcome.fail("timeout", "no close from the server")
                            : closed instanceof Throwable t ? Outcome.of(t) : Outcome.fail("ws-extra-message", "after the close");
                }
                return code == WebSocket.NORMAL_CLOSURE ? Outcome.OK : Outcome.fail("ws-close-" + code, "close code " + code);
            } finally {
                w.abort();
            }
        }

        void write() {
            try (BufferedWriter w = Files.newBufferedWriter(out.resolve("requests.tsv"))) {
                while (true) {
                    String line = lines.poll(1, TimeUnit.SECONDS);
                    if (line == null) {
                        w.flush();
                        continue;
                    }
                    if (line.isEmpty()) {
                        return;
                    }
                    w.write(line);
                }
            } catch (IOException | InterruptedException e) {
                System.err.println("SoakLoad: cannot write requests.tsv: " + e);
            }
        }

        void counts() throws IOException {
            StringBuilder s = new StringBuilder("kind\tok\tko\n");
            long ok = 0;
            long ko = 0;
            for (Kind k : Kind.values()) {
                s.append(k.label).append('\t').append(k.ok.sum()).append('\t').append(k.ko.sum()).append('\n');
                ok += k.ok.sum();
                ko += k.ko.sum();
            }
            s.append("all\t").append(ok).append('\t').append(ko).append('\n');
            Path tmp = out.resolve("counts.tsv.tmp");
            Files.writeString(tmp, s);
            Files.move(tmp, out.resolve("counts.tsv"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
    }

    static SSLContext trusting(Path pem) throws Exception {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        try (InputStream in = Files.newInputStream(pem)) {
            store.setCertificateEntry("soak", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(store);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        return context;
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** An HTTP/1.1 response read from a raw socket: sized, chunked or up to the close; slowly if asked. */
    record Response(int status, byte[] body) {
        static Response read(InputStream in, boolean slow) throws IOException {
            String[] head = line(in, true).split("\r\n");
            int status = Integer.parseInt(head[0].split(" ")[1]);
            long length = -1;
            boolean chunked = false;
            for (String h : head) {
                String lower = h.toLowerCase(Locale.ROOT);
                if (lower.startsWith("content-length:")) {
                    length = Long.parseLong(lower.substring(15).trim());
                } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                    chunked = true;
                }
            }
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            if (chunked) {
                while (true) {
                    String size = line(in, false);
                    int semi = size.indexOf(';');
                    int n = Integer.parseInt((semi < 0 ? size : size.substring(0, semi)).trim(), 16);
                    if (n == 0) {
                        while (!line(in, false).isEmpty()) {
                            // trailers
                        }
                        break;
                    }
                    copy(in, body, n, slow, false);
                    line(in, false);
                }
            } else if (length >= 0) {
                copy(in, body, length, slow, false);
            } else {
                copy(in, body, Long.MAX_VALUE, slow, true);
            }
            return new Response(status, body.toByteArray());
        }

        private static void copy(InputStream in, ByteArrayOutputStream body, long n, boolean slow, boolean untilClose) throws IOException {
            byte[] buf = new byte[8192];
            while (n > 0) {
                int r = in.read(buf, 0, (int) Math.min(buf.length, n));
                if (r < 0) {
                    if (untilClose) {
                        return;
                    }
                    throw new java.io.EOFException("body ended " + n + " bytes short");
                }
                body.write(buf, 0, r);
                n -= r;
                if (slow) {
                    sleep(20);
                }
            }
        }

        /** A line without its CRLF; with head, every line up to the blank one. */
        private static String line(InputStream in, boolean head) throws IOException {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            int last4 = 0;
            while (true) {
                int c = in.read();
                if (c < 0) {
                    throw new java.io.EOFException("connection closed in a " + (head ? "response head" : "chunk line"));
                }
                last4 = (last4 << 8) | c;
                if (head ? last4 == 0x0d0a0d0a : c == '\n') {
                    String s = b.toString(StandardCharsets.ISO_8859_1);
                    return head ? s : s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
                }
                b.write(c);
            }
        }
    }

    // ---- classification -----------------------------------------------------------------------------

    static final Pattern ACCESS = Pattern.compile("soak=(\\S+) (\\d+) up=(\\S*)");

    static void classify(Path requests, Path events, Path logs, String victim, Path out) throws IOException {
        // A kill lasts from the signal to the process being gone: a JVM's teardown takes a while, and
        // its sockets close only at the end of it, so a request handed to the server meanwhile was
        // in flight to it at the kill as much as one sent a moment before the signal.
        List<long[]> kills = new ArrayList<>();
        for (String line : Files.readAllLines(events)) {
            String[] f = line.split("\t");
            if (f.length > 1 && f[1].equals("kill")) {
                kills.add(new long[] {Long.parseLong(f[0]), Long.parseLong(f[0])});
            } else if (f.length > 1 && f[1].equals("killed") && !kills.isEmpty()) {
                kills.get(kills.size() - 1)[1] = Long.parseLong(f[0]);
            }
        }
        Map<String, List<Long>> durations = new LinkedHashMap<>();
        Map<String, long[]> span = new HashMap<>();
        List<String[]> failed = new ArrayList<>();
        for (Kind k : Kind.values()) {
            durations.put(k.label, new ArrayList<>());
        }
        durations.put("all", new ArrayList<>());
        try (Stream<String> lines = Files.lines(requests)) {
            lines.forEach(line -> {
                String[] f = line.split("\t", -1);
                if (f.length < 6) {
                    return; // a line cut short: the load was stopped (Kodiak gone), not a request
                }
                long start = Long.parseLong(f[0]);
                long end = Long.parseLong(f[1]);
                for (String key : List.of(f[2], "all")) {
                    durations.get(key).add(end - start);
                    span.merge(key, new long[] {start, end}, (a, b) -> new long[] {Math.min(a[0], b[0]), Math.max(a[1], b[1])});
                }
                if (!f[4].equals("ok")) {
                    failed.add(f);
                }
            });
        }
        // Kodiak's access-log lines of the failed requests only (the log may hold millions).
        Set<String> wanted = new HashSet<>();
        failed.forEach(f -> wanted.add(f[3]));
        Map<String, String> upstreamOf = new HashMap<>();
        if (!wanted.isEmpty()) {
            try (Stream<Path> files = Files.list(logs)) {
                for (Path p : files.filter(p -> p.getFileName().toString().startsWith("access")).toList()) {
                    InputStream raw = Files.newInputStream(p);
                    InputStream in = p.toString().endsWith(".gz") ? new GZIPInputStream(raw) : raw;
                    try (var r = new java.io.BufferedReader(new InputStreamReader(in, StandardCharsets.ISO_8859_1))) {
                        String line;
                        while ((line = r.readLine()) != null) {
                            Matcher m = ACCESS.matcher(line);
                            if (m.find() && wanted.contains(m.group(1))) {
                                upstreamOf.put(m.group(1), m.group(2) + " " + m.group(3));
                            }
                        }
                    }
                }
            }
        }
        Map<String, Map<String, Integer>> classes = new LinkedHashMap<>();
        Map<String, long[]> counts = new HashMap<>(); // kind -> {ko, explained}
        StringBuilder detail = new StringBuilder("start_ms\tend_ms\tkind\tid\toutcome\texplained\twhy\tkodiak_status_upstream\tdetail\n");
        for (String[] f : failed) {
            long start = Long.parseLong(f[0]);
            long end = Long.parseLong(f[1]);
            Kind kind = Kind.of(f[2]);
            String logged = upstreamOf.get(f[3]);
            long[] kill = kills.stream().filter(k -> start <= k[1] && k[0] <= end).findFirst().orElse(null);
            String why;
            boolean explained = false;
            if (!kind.group) {
                why = "not routed to the group of the killed server";
            } else if (kill == null) {
                why = "not in flight at a kill";
            } else if (logged == null) {
                why = "in flight at the kill, but no access-log line names it";
            } else if (!logged.contains(victim)) {
                why = "in flight at the kill, but went to " + logged;
            } else {
                explained = true;
                long after = start - kill[0];
                why = "in flight to " + victim + " at the kill (started " + Math.abs(after) + " ms " + (after < 0 ? "before" : "after")
                        + " the signal, the server gone " + (kill[1] - kill[0]) + " ms after it)";
            }
            detail.append(String.join("\t", f[0], f[1], f[2], f[3], f[4], explained ? "yes" : "no", why,
                    logged == null ? "-" : logged, f.length > 5 ? f[5] : "")).append('\n');
            for (String key : List.of(f[2], "all")) {
                long[] c = counts.computeIfAbsent(key, x -> new long[2]);
                c[0]++;
                if (explained) {
                    c[1]++;
                }
                classes.computeIfAbsent(key, x -> new TreeMap<>()).merge(f[4] + (explained ? " (explained)" : " (unexplained)"), 1, Integer::sum);
            }
        }
        Files.writeString(out.resolve("failures.tsv"), detail);

        StringBuilder rows = new StringBuilder("target\tscenario\trequests\tok\tko\tko_explained\tko_unexplained\trps\tp50_ms\tp95_ms\tp99_ms\tmean_ms\tmax_ms\tfailures\n");
        for (Map.Entry<String, List<Long>> e : durations.entrySet()) {
            List<Long> d = e.getValue();
            if (d.isEmpty()) {
                continue;
            }
            long[] c = counts.getOrDefault(e.getKey(), new long[2]);
            long[] s = span.get(e.getKey());
            long[] sorted = d.stream().mapToLong(Long::longValue).sorted().toArray();
            double mean = Arrays.stream(sorted).average().orElse(0);
            StringBuilder why = new StringBuilder();
            classes.getOrDefault(e.getKey(), Map.of()).forEach((k, v) -> why.append(why.length() == 0 ? "" : ", ").append(v).append(' ').append(k));
            rows.append(String.format(Locale.ROOT, "kodiak\t%s\t%d\t%d\t%d\t%d\t%d\t%.1f\t%d\t%d\t%d\t%.2f\t%d\t%s%n", e.getKey(),
                    sorted.length, sorted.length - c[0], c[0], c[1], c[0] - c[1],
                    sorted.length * 1000.0 / Math.max(1, s[1] - s[0]), rank(sorted, 50), rank(sorted, 95), rank(sorted, 99), mean,
                    sorted[sorted.length - 1], why.length() == 0 ? "-" : why));
        }
        Files.writeString(out.resolve("outcomes.tsv"), rows);
    }

    /** Nearest-rank percentile, as bench/lib/request-stats.sh computes it. */
    static long rank(long[] sorted, int p) {
        int i = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(1, i) - 1];
    }
}
