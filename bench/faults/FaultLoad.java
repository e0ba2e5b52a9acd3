import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * The load and the judge of bin/bench.sh faults. Three commands:
 *
 *   load PORT CONNECTIONS SECONDS PAUSE_MS OUT PREFIX [STOP]
 *       CONNECTIONS clients, each sending one request at a time and pausing PAUSE_MS after each, for
 *       SECONDS or until the file STOP exists. Every request has a unique X-Request-Id; it asks FaultStub for a body of a size,
 *       framing (Content-Length or chunked) and pace drawn at random; 40 % are POSTs whose body (also
 *       a function of the id) the server checks. Every answer is verified: status, echoed id, length
 *       and every byte (FaultStub.body). One line per request in OUT:
 *       start-ms end-ms method id status class detail. Classes: ok, http-status (a non-200 status),
 *       connect-refused, reset (RST before any response byte), closed (EOF before any response byte),
 *       timeout (no byte for 15 s), truncated (the framing shows the body is incomplete: short
 *       Content-Length, no last chunk, or a reset mid-body), bad-response (not HTTP), wrong-body (the
 *       framing says complete but the bytes or length are wrong: relayed as complete when it was not),
 *       wrong-request (another request's answer, or the server saw a corrupted request body).
 *       A client closes its connection after about 1 in 20 requests, so new connections keep coming.
 *   hog PORT SIZE HOLD_S OUT
 *       The client that never reads: asks for SIZE bytes, reads nothing for HOLD_S, then drains with a
 *       2 s timeout and writes one line "received=N complete|cut|open held_ms=...".
 *   hold PORT N SECONDS READY GO
 *       Writes "ready" to READY once running, waits for the file GO (the bench creates it once it
 *       has lowered the proxy's open-file limit), then opens up to N connections that send nothing,
 *       writes "held N connections" to READY and holds them for SECONDS. Beyond the few the proxy
 *       can still accept they wait in its listen queue: its limit is reached, with clients waiting.
 *   summarize REQUESTS[,REQUESTS...] FAULT_START FAULT_END KEY=VALUE...
 *       One JSON object (a results row) from the lines of one load or more: counts, latency, failures by (method,
 *       status, class), the rate before the fault and the time from FAULT_END until the rate is back
 *       to 90 % of it over a 1 s window; KEY=VALUE pairs are added as fields (numbers, true/false and
 *       null typed, the rest text). The rule for which failures a fault explains is in explained().
 */
public final class FaultLoad {
    private static final int[] SIZES = {0, 1024, 16 * 1024, 64 * 1024, 256 * 1024};
    private static final int[] POST_SIZES = {0, 100, 4096, 65536};

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "load" -> load(Integer.parseInt(args[1]), Integer.parseInt(args[2]), Long.parseLong(args[3]),
                    Long.parseLong(args[4]), Path.of(args[5]), args[6], args.length > 7 ? Path.of(args[7]) : null);
            case "hold" -> hold(Integer.parseInt(args[1]), Integer.parseInt(args[2]), Long.parseLong(args[3]),
                    Path.of(args[4]), Path.of(args[5]));
            case "hog" -> hog(Integer.parseInt(args[1]), Long.parseLong(args[2]), Long.parseLong(args[3]), Path.of(args[4]));
            case "summarize" -> System.out.println(summarize(Path.of(args[1]), Long.parseLong(args[2]), Long.parseLong(args[3]),
                    Arrays.copyOfRange(args, 4, args.length)));
            default -> throw new IllegalArgumentException("load | hog | summarize");
        }
    }

    // ---------------------------------------------------------------- load

    private static void load(int port, int connections, long seconds, long pauseMs, Path out, String prefix, Path stop)
            throws Exception {
        long endAt = System.currentTimeMillis() + seconds * 1000;
        // Tells bench/faults/run.sh the load is running: the fault's timing counts from here, not
        // from the launch (compiling this file takes a second or more on a busy machine).
        Files.writeString(Path.of(out + ".started"), endAt - seconds * 1000 + "\n");
        List<Thread> clients = new ArrayList<>();
        List<StringBuilder> lines = new ArrayList<>();
        for (int c = 0; c < connections; c++) {
            StringBuilder mine = new StringBuilder();
            lines.add(mine);
            String client = prefix + "-" + c;
            Thread thread = new Thread(() -> new Client(port, client, mine).run(endAt, pauseMs, stop), client);
            clients.add(thread);
            thread.start();
        }
        // The load generator's own stalls (GC, or no CPU on a busy machine): a client stalled past a
        // proxy's idle-timeout finds its kept-alive connection closed, which is the stall's doing,
        // not the proxy's. The longest goes to OUT.stall (ms), for the report to show beside the failures.
        long[] longest = {0};
        Thread watchdog = new Thread(() -> {
            long last = System.currentTimeMillis();
            while (true) {
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
                long now = System.currentTimeMillis();
                longest[0] = Math.max(longest[0], now - last - 100);
                last = now;
            }
        }, "watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        for (Thread thread : clients) {
            thread.join();
        }
        watchdog.interrupt();
        try (PrintWriter writer = new PrintWriter(Files.newBufferedWriter(out))) {
            lines.forEach(writer::print);
        }
        Files.writeString(Path.of(out + ".stall"), longest[0] + "\n");
    }

    /** What went wrong with one answer: its class and a few words. */
    private static final class Failed extends Exception {
        final String kind;

        Failed(String kind, String detail) {
            super(detail, null, false, false);
            this.kind = kind;
        }
    }

    private static final class Client {
        final int port;
        final String name;
        final StringBuilder lines;
        final Random random;
        Socket socket;
        InputStream in;
        /** Requests already answered on the current connection: tells a fresh connection's failure from a reused one's. */
        int served;

        Client(int port, String name, StringBuilder lines) {
            this.port = port;
            this.name = name;
            this.lines = lines;
            this.random = new Random(name.hashCode());
        }

        void run(long endAt, long pauseMs, Path stop) {
            long n = 0;
            while (System.currentTimeMillis() < endAt && (stop == null || !Files.exists(stop))) {
                String id = name + "-" + n++;
                boolean post = random.nextInt(10) < 4;
                long start = System.currentTimeMillis();
                String[] outcome;
                try {
                    outcome = exchange(id, post);
                } catch (Failed f) {
                    outcome = new String[] {"0", f.kind, f.getMessage()};
                    close();
                }
                lines.append(start).append(' ').append(System.currentTimeMillis()).append(' ').append(post ? "POST" : "GET")
                        .append(' ').append(id).append(' ').append(outcome[0]).append(' ').append(outcome[1]).append(' ')
                        .append(outcome[2].replace(' ', '_')).append('\n');
                if (pauseMs > 0) {
                    try {
                        Thread.sleep(pauseMs);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
            close();
        }

        void close() {
            try {
                if (socket != null) {
                    socket.close();
                }
            } catch (IOException ignored) {
                // gone already
            }
            socket = null;
            served = 0;
        }

        /** status, class, detail */
        String[] exchange(String id, boolean post) throws Failed {
            long seed = FaultStub.seed(id);
            int size = SIZES[random.nextInt(SIZES.length)];
            boolean chunked = random.nextBoolean();
            int streamMs = random.nextInt(4) == 0 ? 200 : 0;
            boolean closeAfter = random.nextInt(20) == 0;
            int bodySize = post ? POST_SIZES[random.nextInt(POST_SIZES.length)] : 0;
            boolean bodyChunked = post && random.nextInt(10) < 3;
            try {
                if (socket == null) {
                    socket = new Socket();
                    socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
                    socket.setSoTimeout(15_000);
                    socket.setTcpNoDelay(true);
                    in = new BufferedInputStream(socket.getInputStream(), 65536);
                }
            } catch (ConnectException e) {
                throw new Failed("connect-refused", e.getMessage());
            } catch (SocketTimeoutException e) {
                throw new Failed("timeout", "connect");
            } catch (IOException e) {
                throw new Failed("connect-refused", e.getClass().getSimpleName());
            }
            try {
                OutputStream out = socket.getOutputStream();
                StringBuilder head = new StringBuilder(post ? "POST" : "GET").append(" /r/").append(id)
                        .append(" HTTP/1.1\r\nHost: faults\r\nX-Request-Id: ").append(id).append("\r\nX-Size: ").append(size)
                        .append("\r\nX-Chunked: ").append(chunked ? 1 : 0).append("\r\nX-Stream-Ms: ").append(streamMs).append("\r\n");
                if (closeAfter) {
                    head.append("Connection: close\r\n");
                }
                if (post) {
                    head.append(bodyChunked ? "Transfer-Encoding: chunked\r\n" : "Content-Length: " + bodySize + "\r\n");
                }
                head.append("\r\n");
                out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
                if (post && bodySize > 0) {
                    byte[] body = new byte[bodySize];
                    for (int k = 0; k < bodySize; k++) {
                        body[k] = FaultStub.body(seed, k);
                    }
                    if (bodyChunked) {
                        out.write((Integer.toHexString(bodySize) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                        out.write(body);
                        out.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
                    } else {
                        out.write(body);
                    }
                }
                if (bodyChunked) {
                    out.write("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                }
                out.flush();
            } catch (IOException e) {
                // The proxy closed while we were sending: read what it said, if anything.
            }
            String[] outcome = read(id, seed, size);
            if (closeAfter && socket != null) {
                // We asked for the close: the connection is not ours to reuse, whatever the answer said.
                // An answer that did not say "Connection: close" (RFC 9112 9.6: the server SHOULD) is
                // marked in the detail of an ok line.
                close();
                if (outcome[1].equals("ok")) {
                    outcome[2] = "no-close-in-answer";
                }
            }
            return outcome;
        }

        String[] read(String id, long seed, int expected) throws Failed {
            String head;
            try {
                head = readHead(in);
            } catch (SocketTimeoutException e) {
                throw new Failed("timeout", "no response head");
            } catch (EOFException e) {
                throw new Failed(e.getMessage() == null ? "closed" : "bad-response",
                        (e.getMessage() == null ? "before response" : "partial head") + " (after " + served + " on the connection)");
            } catch (IOException e) {
                throw new Failed("reset", "before response (after " + served + " on the connection)");
            }
            String[] lines = head.split("\r\n");
            String[] statusLine = lines[0].split(" ");
            int status;
            try {
                if (!statusLine[0].startsWith("HTTP/1.")) {
                    throw new NumberFormatException();
                }
                status = Integer.parseInt(statusLine[1]);
            } catch (RuntimeException e) {
                throw new Failed("bad-response", "status line");
            }
            Map<String, String> h = new TreeMap<>();
            for (int k = 1; k < lines.length; k++) {
                int colon = lines[k].indexOf(':');
                if (colon > 0) {
                    h.put(lines[k].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[k].substring(colon + 1).trim());
                }
            }
            boolean chunked = h.getOrDefault("transfer-encoding", "").toLowerCase(Locale.ROOT).contains("chunked");
            String cl = h.get("content-length");
            boolean close = h.getOrDefault("connection", "").toLowerCase(Locale.ROOT).contains("close");
            boolean mine = status == 200;
            if (mine && !id.equals(h.get("x-request-id"))) {
                mine = false; // still read its body, to keep the connection in step, then report
            }
            long got = 0;
            String wrong = null;
            String[] result = null;
            try {
                if (chunked) {
                    while (true) {
                        String size = readLine(in);
                        int semi = size.indexOf(';');
                        long chunk = Long.parseLong((semi < 0 ? size : size.substring(0, semi)).trim(), 16);
                        if (chunk == 0) {
                            while (!readLine(in).isEmpty()) {
                                // trailers
                            }
                            break;
                        }
                        for (long k = 0; k < chunk; k++) {
                            int b = in.read();
                            if (b < 0) {
                                throw new EOFException();
                            }
                            if (wrong == null && (byte) b != FaultStub.body(seed, got)) {
                                wrong = "byte " + got + " differs";
                            }
                            got++;
                        }
                        readLine(in);
                    }
                } else if (cl != null) {
                    long length = Long.parseLong(cl);
                    for (long k = 0; k < length; k++) {
                        int b = in.read();
                        if (b < 0) {
                            throw new EOFException();
                        }
                        if (wrong == null && (byte) b != FaultStub.body(seed, got)) {
                            wrong = "byte " + got + " differs";
                        }
                        got++;
                    }
                } else if (status >= 200 && status != 204 && status != 304) {
                    // Close-delimited: the client cannot tell a cut from the end; only the expected size can.
                    close = true;
                    int b;
                    while ((b = in.read()) >= 0) {
                        if (wrong == null && (byte) b != FaultStub.body(seed, got)) {
                            wrong = "byte " + got + " differs";
                        }
                        got++;
                    }
                    if (mine && got != expected) {
                        wrong = "close-delimited " + got + " of " + expected;
                    }
                }
            } catch (SocketTimeoutException e) {
                throw new Failed(mine ? "timeout" : "timeout", "mid-body after " + got + " bytes");
            } catch (IOException | RuntimeException e) {
                String how = chunked ? "no-last-chunk" : cl != null ? "content-length-short" : "closed";
                if (!mine && status != 200) {
                    result = new String[] {String.valueOf(status), "http-status", "body " + how};
                    close = true;
                } else {
                    throw new Failed("truncated", how + " at " + got + " of " + expected);
                }
            }
            served++;
            if (close) {
                close();
            }
            if (result != null) {
                return result;
            }
            if (status != 200) {
                return new String[] {String.valueOf(status), "http-status", h.getOrDefault("x-served-by", "proxy")};
            }
            if (!id.equals(h.get("x-request-id"))) {
                return new String[] {"200", "wrong-request", "answer for " + h.get("x-request-id")};
            }
            if ("bad".equals(h.get("x-body-check"))) {
                return new String[] {"200", "wrong-request", "request body corrupted"};
            }
            if (wrong == null && got != expected) {
                wrong = "length " + got + " of " + expected;
            }
            if (wrong != null) {
                return new String[] {"200", "wrong-body", wrong};
            }
            return new String[] {"200", "ok", "-"};
        }
    }

    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int last4 = 0;
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException(head.size() == 0 ? null : "partial");
            }
            head.write(b);
            if (head.size() > 65536) {
                throw new EOFException("head too long");
            }
            last4 = (last4 << 8) | b;
            if (last4 == 0x0d0a0d0a) {
                return head.toString(StandardCharsets.ISO_8859_1);
            }
        }
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException();
            }
            if (b == '\n') {
                String s = line.toString(StandardCharsets.ISO_8859_1);
                return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
            }
            line.write(b);
        }
    }

    // ---------------------------------------------------------------- hold

    private static void hold(int port, int n, long seconds, Path ready, Path go) throws InterruptedException, IOException {
        Files.writeString(ready, "ready\n");
        for (int wait = 0; wait < 600 && !Files.exists(go); wait++) {
            Thread.sleep(100);
        }
        List<Socket> held = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            try {
                Socket socket = new Socket();
                socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
                held.add(socket);
            } catch (IOException e) {
                break; // the backlog is full or the proxy refuses: the limit is reached either way
            }
        }
        Files.writeString(ready, "held " + held.size() + " connections\n");
        Thread.sleep(seconds * 1000);
        for (Socket socket : held) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // already closed by the proxy
            }
        }
    }

    // ---------------------------------------------------------------- hog

    private static void hog(int port, long size, long holdS, Path out) throws IOException {
        long start = System.currentTimeMillis();
        String result;
        try (Socket socket = new Socket()) {
            // A small receive buffer, so the proxy, not this socket, has to hold what is not read.
            socket.setReceiveBufferSize(16384);
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
            socket.getOutputStream().write(("GET /r/hog HTTP/1.1\r\nHost: faults\r\nX-Request-Id: hog\r\nX-Size: " + size
                    + "\r\nX-Chunked: 0\r\nX-Stream-Ms: 0\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            try {
                Thread.sleep(holdS * 1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            socket.setSoTimeout(2000);
            InputStream in = socket.getInputStream();
            byte[] buf = new byte[65536];
            long received = 0;
            String state;
            try {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    received += n;
                }
                state = "cut";
            } catch (SocketTimeoutException e) {
                state = "open";
            } catch (IOException e) {
                state = "cut";
            }
            // The head is a few hundred bytes: anything at or past SIZE means the whole body came.
            if (received >= size) {
                state = "complete";
            }
            result = "received=" + received + " " + state;
        }
        Files.writeString(out, result + " held_ms=" + (System.currentTimeMillis() - start) + "\n");
    }

    // ---------------------------------------------------------------- summarize

    /** Failures this fault explains (docs/faults.md); anything else in a fault's window is unexplained. */
    static boolean explained(String fault, String method, int status, String kind) {
        boolean post = method.equals("POST");
        return switch (fault) {
            // A response cut mid-body cannot be retried (its head already reached the client); a POST
            // already sent is never retried: its body was streamed, not kept.
            case "kill", "reset" -> kind.equals("truncated") || post && (status == 502 || status == 504
                    || kind.equals("reset") || kind.equals("closed"));
            // Stopped: a request sent to the frozen server waits for response-timeout; a GET is then
            // retried, a POST answered 504; a body already streaming is cut when it stalls.
            case "stop" -> kind.equals("truncated") || post && (status == 504 || status == 502);
            // Not HTTP: 502, not retried (reference.conf's retry conditions do not include an invalid
            // response) until passive health takes the server out.
            case "garbage" -> status == 502;
            default -> false;
        };
    }

    static String summarize(Path file, long faultStart, long faultEnd, String[] extra) throws IOException {
        // Several loads' lines may be judged together (the burst's own requests with the steady ones'):
        // FILE[,FILE...]
        List<String[]> all = new ArrayList<>();
        for (String one : file.toString().split(",")) {
            for (String line : Files.readAllLines(Path.of(one))) {
                if (!line.isBlank()) {
                    all.add(line.split(" "));
                }
            }
        }
        String fault = "";
        for (String kv : extra) {
            if (kv.startsWith("scenario=")) {
                fault = kv.substring(9);
            }
        }
        long first = Long.MAX_VALUE;
        long last = 0;
        long ok = 0;
        long failedGet = 0;
        long failedPost = 0;
        long failedGetWhole = 0;
        long wrong = 0;
        long truncated = 0;
        long unexplained = 0;
        long closeNotSaid = 0;
        long[] ms = new long[all.size()];
        Map<String, Integer> failures = new TreeMap<>();
        Map<String, Integer> unexplainedBy = new TreeMap<>();
        int i = 0;
        for (String[] r : all) {
            long start = Long.parseLong(r[0]);
            long end = Long.parseLong(r[1]);
            first = Math.min(first, start);
            last = Math.max(last, end);
            ms[i++] = end - start;
            String kind = r[5];
            if (kind.equals("ok")) {
                ok++;
                if (r[6].equals("no-close-in-answer")) {
                    closeNotSaid++;
                }
                continue;
            }
            if (r[2].equals("POST")) {
                failedPost++;
            } else {
                failedGet++;
                if (!kind.equals("truncated")) {
                    failedGetWhole++;
                }
            }
            if (kind.equals("wrong-body") || kind.equals("wrong-request")) {
                wrong++;
            }
            if (kind.equals("truncated")) {
                truncated++;
            }
            String key = r[2] + " " + r[4] + " " + kind;
            failures.merge(key, 1, Integer::sum);
            if (!explained(fault, r[2], Integer.parseInt(r[4]), kind)) {
                unexplained++;
                unexplainedBy.merge(key + " (" + r[6] + ")", 1, Integer::sum);
            }
        }
        Arrays.sort(ms);
        int n = ms.length;
        StringBuilder json = new StringBuilder("{");
        field(json, "requests", n);
        field(json, "ok", ok);
        field(json, "ko", n - ok);
        field(json, "rps", n > 0 && last > first ? round(n * 1000.0 / (last - first)) : null);
        field(json, "p50_ms", n > 0 ? ms[rank(50, n)] : null);
        field(json, "p95_ms", n > 0 ? ms[rank(95, n)] : null);
        field(json, "p99_ms", n > 0 ? ms[rank(99, n)] : null);
        field(json, "mean_ms", n > 0 ? round(Arrays.stream(ms).average().orElse(0)) : null);
        field(json, "max_ms", n > 0 ? ms[n - 1] : null);
        field(json, "failed_get", failedGet);
        field(json, "failed_post", failedPost);
        // GETs failed other than by a body cut mid-way (which no proxy can retry once its head is out).
        field(json, "failed_get_whole", failedGetWhole);
        field(json, "wrong", wrong);
        field(json, "truncated", truncated);
        field(json, "unexplained", unexplained);
        // Requests that asked for Connection: close and were answered without it.
        field(json, "close_not_said", closeNotSaid);
        field(json, "failures", failures.isEmpty() ? "none" : describe(failures));
        field(json, "unexplained_by", unexplainedBy.isEmpty() ? "none" : describe(unexplainedBy));
        // Full rate: the ok answers per second before the fault (from 1 s after the load began).
        long baseFrom = first + 1000;
        long baseOk = all.stream().filter(r -> r[5].equals("ok") && Long.parseLong(r[1]) >= baseFrom
                && Long.parseLong(r[1]) < faultStart).count();
        double baseRate = faultStart > baseFrom ? baseOk * 1000.0 / (faultStart - baseFrom) : 0;
        field(json, "base_rps", round(baseRate));
        Long recovery = null;
        if (baseRate > 0) {
            long[] ends = all.stream().filter(r -> r[5].equals("ok")).mapToLong(r -> Long.parseLong(r[1])).sorted().toArray();
            for (long t = faultEnd; t + 1000 <= last; t += 100) {
                long from = t;
                long count = Arrays.stream(ends).filter(e -> e >= from && e < from + 1000).count();
                if (count >= 0.9 * baseRate) {
                    recovery = t - faultEnd;
                    break;
                }
            }
        }
        field(json, "recovery_ms", recovery);
        field(json, "fault_s", round((faultEnd - faultStart) / 1000.0));
        for (String kv : extra) {
            int eq = kv.indexOf('=');
            String key = kv.substring(0, eq);
            String value = kv.substring(eq + 1);
            if (key.equals("target") || key.equals("scenario")) {
                field(json, key, value);
            } else if (value.matches("-?\\d{1,18}")) {
                field(json, key, Long.parseLong(value));
            } else if (value.matches("-?\\d+\\.\\d+")) {
                field(json, key, Double.parseDouble(value));
            } else if (value.equals("true") || value.equals("false")) {
                field(json, key, Boolean.parseBoolean(value));
            } else if (value.isEmpty() || value.equals("null")) {
                field(json, key, null);
            } else {
                field(json, key, value);
            }
        }
        json.setLength(json.length() - 1);
        return json.append('}').toString();
    }

    private static int rank(int p, int n) {
        return Math.max(0, (int) Math.ceil(p / 100.0 * n) - 1);
    }

    private static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }

    private static String describe(Map<String, Integer> counts) {
        StringBuilder s = new StringBuilder();
        counts.forEach((k, v) -> s.append(s.length() == 0 ? "" : "; ").append(k).append(" x").append(v));
        return s.toString();
    }

    private static void field(StringBuilder json, String key, Object value) {
        json.append('"').append(key).append("\":");
        if (value == null) {
            json.append("null");
        } else if (value instanceof Number || value instanceof Boolean) {
            json.append(value);
        } else {
            json.append('"');
            for (char c : value.toString().toCharArray()) {
                if (c == '"' || c == '\\') {
                    json.append('\\').append(c);
                } else if (c < 0x20) {
                    json.append(String.format("\\u%04x", (int) c));
                } else {
                    json.append(c);
                }
            }
            json.append('"');
        }
        json.append(',');
    }
}
