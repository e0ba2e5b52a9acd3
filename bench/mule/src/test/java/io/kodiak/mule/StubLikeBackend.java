package io.kodiak.mule;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * Answers like the experiment's stub servlet, minus its 500 ms wait: the request body followed by
 * "-appended by servlet" and the local time. Only the exact servlet path is served, so a peer that
 * rewrites the path wrongly gets a 404 instead of a pass.
 */
final class StubLikeBackend implements AutoCloseable {

  static final String PATH = "/ProxiedServiceStub/ServiceStubServlet";
  private static final DateTimeFormatter DATE = DateTimeFormatter.ofPattern("yyyy-MM-dd - HH:mm:ss");

  private final HttpServer server;
  private final ExecutorService executor = Executors.newFixedThreadPool(4);

  private StubLikeBackend(HttpServer server) {
    this.server = server;
  }

  static StubLikeBackend start() throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 50);
    StubLikeBackend backend = new StubLikeBackend(server);
    server.createContext("/", backend::handle);
    server.setExecutor(backend.executor);
    server.start();
    return backend;
  }

  int port() {
    return server.getAddress().getPort();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange; InputStream in = exchange.getRequestBody()) {
      String body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      if (!PATH.equals(exchange.getRequestURI().getPath())) {
        exchange.sendResponseHeaders(404, -1);
        return;
      }
      byte[] answer = (body + "-appended by servlet " + LocalDateTime.now().format(DATE)).getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "text/plain;charset=UTF-8");
      exchange.sendResponseHeaders(200, answer.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(answer);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
