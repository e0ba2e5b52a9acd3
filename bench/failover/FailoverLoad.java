import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The load of bin/bench.sh failover: CONNECTIONS clients, each one keep-alive connection sending
 * one request at a time for SECONDS, half GET and half POST (a 64-byte body) at random, each with a
 * unique X-Request-Id. Every request is one line of OUT: start and end (epoch ms), method, id,
 * status (0 for a connection error or a timeout, after which the client reconnects). Bounded: it
 * stops by itself after SECONDS, and a request gets at most 10 s.
 *
 *   java FailoverLoad.java PORT CONNECTIONS SECONDS OUT PREFIX
 */
public final class FailoverLoad {
    private static final byte[] POST_BODY = "x".repeat(64).getBytes(StandardCharsets.US_ASCII);

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        int connections = Integer.parseInt(args[1]);
        long endAt = System.currentTimeMillis() + Long.parseLong(args[2]) * 1000;
        Path out = Path.of(args[3]);
        String prefix = args[4];
        List<Thread> clients = new ArrayList<>();
        List<StringBuilder> lines = new ArrayList<>();
        for (int c = 0; c < connections; c++) {
            StringBuilder mine = new StringBuilder();
            lines.add(mine);
            int client = c;
            Thread thread = new Thread(() -> run(port, endAt, prefix + "-" + client, mine), "client-" + c);
            clients.add(thread);
            thread.start();
        }
        for (Thread thread : clients) {
            thread.join();
        }
        try (PrintWriter writer = new PrintWriter(Files.newBufferedWriter(out))) {
            for (StringBuilder mine : lines) {
                writer.print(mine);
            }
        }
    }

    private static void run(int port, long endAt, String client, StringBuilder lines) {
        Socket socket = null;
        InputStream in = null;
        long n = 0;
        while (System.currentTimeMillis() < endAt) {
            boolean post = ThreadLocalRandom.current().nextBoolean();
            String id = client + "-" + n++;
            long start = System.currentTimeMillis();
            int status;
            try {
                if (socket == null) {
                    socket = new Socket(InetAddress.getLoopbackAddress(), port);
                    socket.setSoTimeout(10_000);
                    socket.setTcpNoDelay(true);
                    in = new BufferedInputStream(socket.getInputStream(), 8192);
                }
                OutputStream out = socket.getOutputStream();
                String head = (post ? "POST" : "GET") + " /item HTTP/1.1\r\nHost: failover\r\nX-Request-Id: " + id
                        + (post ? "\r\nContent-Length: " + POST_BODY.length : "") + "\r\n\r\n";
                out.write(head.getBytes(StandardCharsets.US_ASCII));
                if (post) {
                    out.write(POST_BODY);
                }
                out.flush();
                status = readResponse(in);
                if (status < 0) {
                    status = -status;
                    socket.close();
                    socket = null;
                }
            } catch (IOException e) {
                status = 0;
                try {
                    if (socket != null) {
                        socket.close();
                    }
                } catch (IOException ignored) {
                    // gone already
                }
                socket = null;
            }
            lines.append(start).append(' ').append(System.currentTimeMillis()).append(' ')
                    .append(post ? "POST" : "GET").append(' ').append(id).append(' ').append(status).append('\n');
        }
        try {
            if (socket != null) {
                socket.close();
            }
        } catch (IOException ignored) {
            // done
        }
    }

    /** The status; negative when the connection must not be reused (Connection: close). */
    private static int readResponse(InputStream in) throws IOException {
        String[] lines = readHead(in).split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        long length = 0;
        boolean chunked = false;
        boolean close = false;
        for (String line : lines) {
            String lower = line.toLowerCase(Locale.ROOT);
            if (lower.startsWith("content-length:")) {
                length = Long.parseLong(lower.substring(15).trim());
            } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                chunked = true;
            } else if (lower.startsWith("connection:") && lower.contains("close")) {
                close = true;
            }
        }
        InputStream raw = in;
        if (chunked) {
            while (true) {
                String size = readLine(raw);
                int semi = size.indexOf(';');
                long chunk = Long.parseLong((semi < 0 ? size : size.substring(0, semi)).trim(), 16);
                if (chunk == 0) {
                    while (!readLine(raw).isEmpty()) {
                        // trailers
                    }
                    break;
                }
                raw.readNBytes((int) chunk);
                readLine(raw);
            }
        } else {
            raw.readNBytes((int) length);
        }
        return close ? -status : status;
    }

    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int last4 = 0;
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("closed");
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
