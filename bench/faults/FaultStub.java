import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * One of the three servers behind the proxies in bin/bench.sh faults. Plain sockets, one thread per
 * connection, so that a fault can be exactly what it claims to be (a reset is an RST after half the
 * body, garbage is bytes that are not HTTP) with no server library tidying it up.
 *
 * A request names what it wants in headers: X-Request-Id (echoed back), X-Size (response body bytes),
 * X-Chunked: 1 (answer chunked, in 16 KiB chunks, else Content-Length), X-Stream-Ms (spread the body
 * over that many ms, so that a kill or a stop lands mid-response). The body's bytes are
 * FaultStub.body(id, i), a function of the id alone, which the load driver recomputes: a body meant
 * for another request, or cut short and passed as whole, cannot go unnoticed. A request body (POST)
 * is checked the same way and the answer says X-Body-Check: ok or bad.
 *
 * Runtime modes, set by "GET /__fault/MODE" on the server's own port (the bench sends it directly,
 * never through a proxy): normal; reset (head and half the body, then RST via SO_LINGER 0); garbage
 * (bytes that are not HTTP, then close); lie-short and lie-swap (wrong answers that look whole, for
 * the driver's self-test). GET /health answers 200 unless the mode is garbage.
 * Each request's "epoch-ms METHOD id" goes to LOG with one unbuffered write before the answer.
 *
 *   java FaultStub.java PORT LOG NAME
 */
public final class FaultStub {
    private static volatile String mode = "normal";

    public static void main(String[] args) throws IOException {
        int port = Integer.parseInt(args[0]);
        FileOutputStream log = new FileOutputStream(args[1], true);
        String name = args[2];
        try (ServerSocket server = new ServerSocket(port, 1024, InetAddress.getLoopbackAddress())) {
            server.setReuseAddress(true);
            while (true) {
                Socket socket = server.accept();
                Thread thread = new Thread(() -> serve(socket, log, name), "conn");
                thread.setDaemon(true);
                thread.start();
            }
        }
    }

    /** The body's byte at offset i for request id: xorshift of the id's hash and the offset. */
    static byte body(long seed, long i) {
        long x = seed ^ (i * 0x9E3779B97F4A7C15L);
        x ^= x << 13;
        x ^= x >>> 7;
        x ^= x << 17;
        return (byte) x;
    }

    static long seed(String id) {
        long h = 0xcbf29ce484222325L;
        for (int k = 0; k < id.length(); k++) {
            h = (h ^ id.charAt(k)) * 0x100000001b3L;
        }
        return h;
    }

    private static void serve(Socket socket, FileOutputStream log, String name) {
        try (socket) {
            socket.setTcpNoDelay(true);
            InputStream in = new BufferedInputStream(socket.getInputStream(), 16384);
            OutputStream out = socket.getOutputStream();
            while (true) {
                String head = readHead(in);
                if (head == null) {
                    return;
                }
                String[] lines = head.split("\r\n");
                String[] start = lines[0].split(" ");
                String method = start[0];
                String path = start.length > 1 ? start[1] : "/";
                Map<String, String> h = new TreeMap<>();
                for (int k = 1; k < lines.length; k++) {
                    int colon = lines[k].indexOf(':');
                    if (colon > 0) {
                        h.put(lines[k].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[k].substring(colon + 1).trim());
                    }
                }
                if (path.startsWith("/__fault/")) {
                    mode = path.substring("/__fault/".length());
                    write(out, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
                    return;
                }
                String id = h.getOrDefault("x-request-id", "-");
                boolean bodyOk = readBody(in, h, seed(id));
                String now = mode;
                if (now.equals("garbage")) {
                    // Not HTTP at all: no status line, binary noise, then the connection ends.
                    byte[] noise = new byte[512];
                    for (int k = 0; k < noise.length; k++) {
                        noise[k] = body(System.nanoTime(), k);
                    }
                    noise[0] = 0x16; // a TLS-looking first byte: what a misrouted port often sends
                    out.write(noise);
                    out.flush();
                    return;
                }
                if (path.startsWith("/health")) {
                    write(out, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nup\n");
                    continue;
                }
                synchronized (log) {
                    log.write((System.currentTimeMillis() + " " + method + " " + id + " " + name + "\n").getBytes(StandardCharsets.US_ASCII));
                }
                long size = Long.parseLong(h.getOrDefault("x-size", "0"));
                boolean chunked = "1".equals(h.get("x-chunked"));
                long streamMs = Long.parseLong(h.getOrDefault("x-stream-ms", "0"));
                if (now.equals("lie-short") || now.equals("lie-swap")) {
                    // For the driver's self-test only (bench/faults/selftest.sh): answers a client must
                    // call wrong although they look complete. lie-short: no length, no chunking, half the
                    // body, then a clean close; lie-swap: a whole body, but another request's bytes.
                    boolean swap = now.equals("lie-swap");
                    write(out, "HTTP/1.1 200 OK\r\nX-Request-Id: " + id + "\r\nX-Body-Check: ok\r\n"
                            + (swap ? "Content-Length: " + size + "\r\n" : "Connection: close\r\n") + "\r\n");
                    long from = swap ? seed(id + "x") : seed(id);
                    byte[] lie = new byte[(int) (swap ? size : size / 2)];
                    for (int k = 0; k < lie.length; k++) {
                        lie[k] = body(from, k);
                    }
                    out.write(lie);
                    out.flush();
                    if (!swap) {
                        return;
                    }
                    continue;
                }
                StringBuilder resp = new StringBuilder("HTTP/1.1 200 OK\r\nX-Request-Id: ").append(id)
                        .append("\r\nX-Served-By: ").append(name).append("\r\nX-Body-Check: ").append(bodyOk ? "ok" : "bad")
                        .append("\r\nContent-Type: application/octet-stream\r\n");
                resp.append(chunked ? "Transfer-Encoding: chunked\r\n" : "Content-Length: " + size + "\r\n").append("\r\n");
                write(out, resp.toString());
                boolean reset = now.equals("reset");
                long cut = reset ? size / 2 : -1;
                long seed = seed(id);
                int piece = 16384;
                long pieces = Math.max(1, (size + piece - 1) / piece);
                long pause = streamMs / pieces;
                byte[] buf = new byte[piece];
                for (long off = 0; off < size; off += piece) {
                    int n = (int) Math.min(piece, size - off);
                    if (cut >= 0 && off + n > cut) {
                        n = (int) (cut - off);
                    }
                    for (int k = 0; k < n; k++) {
                        buf[k] = body(seed, off + k);
                    }
                    if (n > 0) {
                        if (chunked) {
                            write(out, Integer.toHexString(n) + "\r\n");
                        }
                        out.write(buf, 0, n);
                        if (chunked) {
                            write(out, "\r\n");
                        }
                        out.flush();
                    }
                    if (cut >= 0 && off + piece > cut) {
                        // Half the body is out: abort, the kernel sends RST (SO_LINGER 0).
                        socket.setSoLinger(true, 0);
                        return;
                    }
                    if (pause > 0) {
                        Thread.sleep(pause);
                    }
                }
                if (reset) {
                    socket.setSoLinger(true, 0);
                    return;
                }
                if (chunked) {
                    write(out, "0\r\n\r\n");
                }
                out.flush();
            }
        } catch (SocketException e) {
            // the peer went away: nothing to answer
        } catch (IOException | RuntimeException e) {
            // a request we cannot read: the connection ends
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Reads the request body; true when its bytes are body(seed, i), or there is none. */
    private static boolean readBody(InputStream in, Map<String, String> h, long seed) throws IOException {
        long at = 0;
        boolean ok = true;
        if (h.getOrDefault("transfer-encoding", "").toLowerCase(Locale.ROOT).contains("chunked")) {
            while (true) {
                String line = readLine(in);
                int semi = line.indexOf(';');
                long n = Long.parseLong((semi < 0 ? line : line.substring(0, semi)).trim(), 16);
                if (n == 0) {
                    while (!readLine(in).isEmpty()) {
                        // trailers
                    }
                    return ok;
                }
                for (long k = 0; k < n; k++) {
                    int b = in.read();
                    if (b < 0) {
                        throw new IOException("closed");
                    }
                    ok &= (byte) b == body(seed, at++);
                }
                readLine(in);
            }
        }
        long length = Long.parseLong(h.getOrDefault("content-length", "0"));
        for (long k = 0; k < length; k++) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("closed");
            }
            ok &= (byte) b == body(seed, at++);
        }
        return ok;
    }

    private static void write(OutputStream out, String s) throws IOException {
        out.write(s.getBytes(StandardCharsets.ISO_8859_1));
    }

    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int last4 = 0;
        while (true) {
            int b = in.read();
            if (b < 0) {
                return null;
            }
            head.write(b);
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
                throw new IOException("closed");
            }
            if (b == '\n') {
                String s = line.toString(StandardCharsets.ISO_8859_1);
                return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
            }
            line.write(b);
        }
    }
}
