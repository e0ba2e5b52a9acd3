import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.java_websocket.WebSocket;
import org.java_websocket.handshake.ClientHandshake;
import org.java_websocket.server.WebSocketServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.Executors;

/**
 * The backends of bin/bench.sh soak (compiled with SoakLoad against the project's test classpath,
 * which holds Java-WebSocket):
 * <pre>
 *   SoakBackend http PORT   GET /bytes/N answers N bytes of SoakBackend.pattern (Content-Length, or
 *                           chunked with ?chunked); POST /echo answers the body it read (sized, or
 *                           chunked with ?chunked); GET /health answers 200. One of three servers
 *                           of Kodiak's group; the bench kills and restarts one of them.
 *   SoakBackend ws PORT     a WebSocket server echoing every message (text or binary).
 * </pre>
 * The bodies are a fixed pattern so that the load can check every byte without keeping a copy.
 */
public final class SoakBackend {
    static final int MAX_BODY = 1 << 20;

    private SoakBackend() {
    }

    /** Byte i of every generated body: the load compares against the same function. */
    static byte pattern(long i) {
        return (byte) ('a' + (i * 7 + i / 251) % 26);
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[1]);
        switch (args[0]) {
            case "http" -> http(port);
            case "ws" -> ws(port);
            default -> {
                System.err.println("usage: SoakBackend http|ws PORT");
                System.exit(2);
            }
        }
    }

    private static void http(int port) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1024);
        // Threads, not a fixed small pool: slow readers and senders each hold one for seconds.
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/", SoakBackend::serve);
        server.start();
        System.out.println("SoakBackend http on " + port);
    }

    private static void serve(HttpExchange exchange) throws IOException {
        try (exchange; InputStream in = exchange.getRequestBody(); OutputStream out = exchange.getResponseBody()) {
            String path = exchange.getRequestURI().getPath();
            boolean chunked = "chunked".equals(exchange.getRequestURI().getQuery());
            byte[] body;
            if (path.equals("/health")) {
                in.readAllBytes();
                body = "ok\n".getBytes();
            } else if (path.startsWith("/bytes/")) {
                in.readAllBytes();
                int n = Math.min(MAX_BODY, Integer.parseInt(path.substring(7)));
                body = new byte[n];
                for (int i = 0; i < n; i++) {
                    body[i] = pattern(i);
                }
            } else if (path.equals("/echo")) {
                body = in.readNBytes(MAX_BODY + 1);
            } else {
                in.readAllBytes();
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            exchange.getResponseHeaders().set("Content-Type", "application/octet-stream");
            exchange.sendResponseHeaders(200, chunked ? 0 : body.length == 0 ? -1 : body.length);
            // Chunked answers go out in pieces, so Kodiak relays a body that arrives over time.
            for (int off = 0; off < body.length; off += 16384) {
                out.write(body, off, Math.min(16384, body.length - off));
                if (chunked) {
                    out.flush();
                }
            }
        } catch (NumberFormatException e) {
            exchange.sendResponseHeaders(400, -1);
        }
    }

    private static void say(WebSocket conn, String what) {
        System.out.println(System.currentTimeMillis() + " " + conn.getAttachment() + " " + what);
    }

    private static void ws(int port) throws InterruptedException {
        WebSocketServer server = new WebSocketServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), port)) {
            // One line per session event (its X-Soak-Id as the session's name): when a session fails
            // through Kodiak, these tell whether the server got the message and answered it.
            @Override
            public void onOpen(WebSocket conn, ClientHandshake handshake) {
                conn.setAttachment(handshake.getFieldValue("X-Soak-Id"));
                say(conn, "open");
            }

            @Override
            public void onClose(WebSocket conn, int code, String reason, boolean remote) {
                say(conn, "close " + code + (remote ? " by the client" : " by the server"));
            }

            @Override
            public void onMessage(WebSocket conn, String message) {
                conn.send(message);
            }

            @Override
            public void onMessage(WebSocket conn, ByteBuffer message) {
                int n = message.remaining();
                conn.send(message);
                say(conn, "echoed " + n + " bytes");
            }

            @Override
            public void onError(WebSocket conn, Exception ex) {
            }

            @Override
            public void onStart() {
                System.out.println("SoakBackend ws on " + port);
            }
        };
        server.setReuseAddr(true);
        server.start();
        Thread.currentThread().join();
    }
}
