import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;

/**
 * Bulk-transfer backend for the heap check (run with the JDK source launcher, no build):
 * POST /sink reads and counts the whole body; GET /bytes/N streams N bytes.
 * Usage: java BulkBackend.java PORT
 */
public class BulkBackend {
    public static void main(String[] args) throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", Integer.parseInt(args[0])), 128);
        server.setExecutor(Executors.newFixedThreadPool(8));
        server.createContext("/sink", BulkBackend::sink);
        server.createContext("/bytes/", BulkBackend::bytes);
        server.start();
        System.out.println("bulk backend on " + args[0]);
    }

    private static void sink(HttpExchange exchange) throws java.io.IOException {
        long total = 0;
        byte[] buffer = new byte[64 * 1024];
        try (InputStream in = exchange.getRequestBody()) {
            for (int n; (n = in.read(buffer)) != -1; ) {
                total += n;
            }
        }
        byte[] answer = ("received " + total + "\n").getBytes(StandardCharsets.US_ASCII);
        exchange.sendResponseHeaders(200, answer.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(answer);
        }
    }

    private static void bytes(HttpExchange exchange) throws java.io.IOException {
        long length = Long.parseLong(exchange.getRequestURI().getPath().substring("/bytes/".length()));
        exchange.sendResponseHeaders(200, length);
        byte[] buffer = new byte[64 * 1024];
        try (OutputStream out = exchange.getResponseBody()) {
            for (long left = length; left > 0; ) {
                int n = (int) Math.min(buffer.length, left);
                out.write(buffer, 0, n);
                left -= n;
            }
        }
    }
}
