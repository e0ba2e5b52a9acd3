import com.sun.net.httpserver.HttpServer;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;

/**
 * One server behind the proxies in bin/bench.sh failover: answers every request after DELAY_MS with
 * a small body naming itself, and appends "epoch-millis METHOD request-id" to LOG for each request
 * it received (the id from X-Request-Id), written before the answer with one unbuffered write, so
 * a kill -9 loses no line for a request the server took. GET /health answers 200 and is not logged.
 *
 *   java FailoverStub.java PORT DELAY_MS LOG NAME
 */
public final class FailoverStub {
    public static void main(String[] args) throws IOException {
        int port = Integer.parseInt(args[0]);
        long delay = Long.parseLong(args[1]);
        FileOutputStream log = new FileOutputStream(args[2], true);
        byte[] body = (args[3] + "\n").getBytes(StandardCharsets.US_ASCII);
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1024);
        server.setExecutor(Executors.newFixedThreadPool(256));
        server.createContext("/", exchange -> {
            try (InputStream in = exchange.getRequestBody(); OutputStream out = exchange.getResponseBody()) {
                in.readAllBytes();
                if (!exchange.getRequestURI().getPath().equals("/health")) {
                    String id = exchange.getRequestHeaders().getFirst("X-Request-Id");
                    byte[] line = (System.currentTimeMillis() + " " + exchange.getRequestMethod() + " " + id + "\n")
                            .getBytes(StandardCharsets.US_ASCII);
                    synchronized (log) {
                        log.write(line);
                    }
                    Thread.sleep(delay);
                }
                exchange.sendResponseHeaders(200, body.length);
                out.write(body);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        server.start();
    }
}
