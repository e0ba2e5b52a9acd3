package io.kodiak.proxyprotocol;

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
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CopyOnWriteArraySet;

/**
 * A keep-alive HTTP/1.1 server that expects a PROXY header on each connection and records, per
 * connection: the header, the requests it carried (their paths and X-Client values), and whether
 * it was closed by the proxy. Each answer's body names the connection that carried it. A request
 * whose path contains "close-soon" is answered, then its connection is closed by the server a
 * moment later (a server closing an idle connection).
 */
final class PrivateUpstream implements AutoCloseable {
    /** One connection as the server saw it. */
    static final class Seen {
        final int number;
        volatile ProxyHeader header;
        final List<String> paths = new CopyOnWriteArrayList<>();
        final Set<String> clients = new CopyOnWriteArraySet<>();
        volatile boolean closedByProxy;

        Seen(int number) {
            this.number = number;
        }

        @Override
        public String toString() {
            return "connection " + number + " " + header + " " + paths + " " + clients + (closedByProxy ? " closed" : "");
        }
    }

    /** When set, a request whose path contains "retry-me" is answered 503 (for a retry elsewhere). */
    volatile boolean refusesRetries;
    final List<Seen> connections = new CopyOnWriteArrayList<>();
    final List<String> failures = new CopyOnWriteArrayList<>();
    private final ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());

    PrivateUpstream() throws IOException {
        Thread acceptor = new Thread(this::accept, "private-upstream");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    String url() {
        return "http://127.0.0.1:" + socket.getLocalPort();
    }

    String authority() {
        return "127.0.0.1:" + socket.getLocalPort();
    }

    /** Connections that carried a request (health checks included). */
    List<Seen> withRequests() {
        return connections.stream().filter(c -> !c.paths.isEmpty()).toList();
    }

    private void accept() {
        while (!socket.isClosed()) {
            try {
                Socket connection = socket.accept();
                Seen seen = new Seen(connections.size() + 1);
                connections.add(seen);
                Thread serving = new Thread(() -> serve(connection, seen), "private-upstream-" + seen.number);
                serving.setDaemon(true);
                serving.start();
            } catch (IOException closed) {
                return;
            }
        }
    }

    private void serve(Socket connection, Seen seen) {
        try (connection) {
            connection.setSoTimeout(30_000);
            InputStream in = connection.getInputStream();
            OutputStream out = connection.getOutputStream();
            ByteArrayOutputStream opening = new ByteArrayOutputStream();
            ProxyHeaderParser.Parsed parsed = null;
            while (parsed == null) {
                int b = in.read();
                if (b < 0) {
                    failures.add("connection " + seen.number + " ended before a PROXY header");
                    return;
                }
                opening.write(b);
                parsed = ProxyHeaderParser.parse(opening.toByteArray(), opening.size());
            }
            seen.header = parsed.header();
            while (true) {
                String head = readHead(in);
                if (head == null) {
                    seen.closedByProxy = true;
                    return;
                }
                String path = head.split(" ", 3)[1];
                seen.paths.add(path);
                for (String line : head.split("\r\n")) {
                    if (line.toLowerCase(Locale.ROOT).startsWith("x-client:")) {
                        seen.clients.add(line.substring("x-client:".length()).trim());
                    }
                }
                byte[] body = ("connection " + seen.number).getBytes(StandardCharsets.US_ASCII);
                String status = refusesRetries && path.contains("retry-me") ? "503 Unavailable" : "200 OK";
                out.write(("HTTP/1.1 " + status + "\r\nContent-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(body);
                out.flush();
                if (path.contains("close-soon")) {
                    Thread.sleep(200);
                    return;
                }
            }
        } catch (ProxyHeaderRefused e) {
            failures.add("connection " + seen.number + ": refused header: " + e.getMessage());
        } catch (IOException | InterruptedException e) {
            // the server closes, or the connection was reset
        }
    }

    /** A request head, or null when the connection ended between requests. */
    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (head.size() < 4 || !head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                return null;
            }
            head.write(b);
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
