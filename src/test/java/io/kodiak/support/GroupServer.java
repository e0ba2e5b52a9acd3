package io.kodiak.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * One server of an upstream group in tests: answers every request with its name as the body, and
 * can be told to answer with another status, to fail its health check, to reset connections after
 * reading a request, or be killed (every connection reset) and restarted on the same port. Each
 * request it read is recorded ({@link #received()}), health checks apart ({@link #healthChecks()}).
 */
public final class GroupServer implements AutoCloseable {
    public enum Mode { SERVE, RESET_AFTER_REQUEST }

    /** A request as read: method, target and body. */
    public record Request(String method, String target, String body) {
    }

    private final String name;
    private final int port;
    private final InetAddress address;
    private final String healthPath;
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final List<Request> received = new CopyOnWriteArrayList<>();
    private final List<Request> healthChecks = new CopyOnWriteArrayList<>();
    private volatile ServerSocket server;
    private volatile int status = 200;
    private volatile int healthStatus = 200;
    private volatile Mode mode = Mode.SERVE;

    public GroupServer(String name, String healthPath) throws IOException {
        this(name, healthPath, InetAddress.getLoopbackAddress(), 0);
    }

    /**
     * Listening on {@code address} (another loopback address: 127.0.0.2, say) at {@code port} (0:
     * any free one): servers that a DNS name resolves to share one port and differ by address.
     */
    public GroupServer(String name, String healthPath, InetAddress address, int port) throws IOException {
        this.name = name;
        this.healthPath = healthPath;
        this.address = address;
        this.server = TestTls.listenPlain(address, port, 100);
        this.port = server.getLocalPort();
        accept(server);
    }

    public String url() {
        return TestTls.scheme() + "://" + address.getHostAddress() + ":" + port;
    }

    public int port() {
        return port;
    }

    public String name() {
        return name;
    }

    public List<Request> received() {
        return received;
    }

    public List<Request> healthChecks() {
        return healthChecks;
    }

    public void answerWith(int status) {
        this.status = status;
    }

    public void healthAnswers(int status) {
        this.healthStatus = status;
    }

    public void mode(Mode mode) {
        this.mode = mode;
    }

    /** Stops listening and resets every open connection (kill -9 as its peers see it). */
    public void kill() throws IOException {
        server.close();
        for (Socket socket : sockets) {
            reset(socket);
        }
    }

    /** Listens again on the same port. */
    public void restart() throws IOException {
        ServerSocket again = TestTls.listenPlain(address, port, 100);
        server = again;
        accept(again);
    }

    private void accept(ServerSocket listening) {
        threads.execute(() -> {
            while (!listening.isClosed()) {
                try {
                    Socket socket = listening.accept();
                    sockets.add(socket);
                    if (listening.isClosed()) {
                        // Accepted just as kill() closed the listener: its reset loop may have run
                        // before this socket was in the set, so it is reset here (twice is harmless).
                        reset(socket);
                        return;
                    }
                    threads.execute(() -> serve(socket));
                } catch (IOException closed) {
                    return;
                }
            }
        });
    }

    /**
     * {@code socket}: the plain accepted socket, which {@link #kill} and the reset mode close at
     * once (TLS, when on, is layered over it here: closing a TLS socket from another thread can
     * wait for the read in progress, and the connection would go on being served).
     */
    private void serve(Socket socket) {
        try (socket; Socket conversation = TestTls.serverSide(socket)) {
            InputStream in = conversation.getInputStream();
            OutputStream out = conversation.getOutputStream();
            while (true) {
                Request request = read(in);
                if (request == null) {
                    return;
                }
                boolean check = request.target().equals(healthPath);
                (check ? healthChecks : received).add(request);
                if (!check && mode == Mode.RESET_AFTER_REQUEST) {
                    reset(socket);
                    return;
                }
                int answer = check ? healthStatus : status;
                byte[] body = name.getBytes(StandardCharsets.US_ASCII);
                out.write(("HTTP/1.1 " + answer + " X\r\nContent-Length: " + body.length + "\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                out.write(body);
                out.flush();
            }
        } catch (IOException gone) {
            // reset or closed by the other side
        } finally {
            sockets.remove(socket);
        }
    }

    private static void reset(Socket socket) {
        try {
            socket.setSoLinger(true, 0);
            socket.close();
        } catch (IOException ignored) {
            // already gone
        }
    }

    /** A request head and its Content-Length body; null at the end of the stream. */
    private static Request read(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                return null;
            }
            head.write(b);
            matched = (b == '\r' || b == '\n') && (matched % 2 == 0) == (b == '\r') ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        String[] lines = head.toString(StandardCharsets.ISO_8859_1).split("\r\n");
        String[] requestLine = lines[0].split(" ");
        int length = 0;
        for (String line : lines) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(line.substring(15).trim());
            }
        }
        byte[] body = in.readNBytes(length);
        return new Request(requestLine[0], requestLine[1], new String(body, StandardCharsets.ISO_8859_1));
    }

    @Override
    public void close() throws IOException {
        kill();
        threads.shutdownNow();
    }
}
