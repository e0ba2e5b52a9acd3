package io.kodiak.support;

import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.http.server.HttpHandler;
import org.glassfish.grizzly.http.server.HttpServer;
import org.glassfish.grizzly.http.server.NetworkListener;
import org.glassfish.grizzly.http.server.Request;
import org.glassfish.grizzly.http.server.Response;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real HTTP server for the proxy to talk to, with endpoints that each exercise one behaviour:
 * <pre>
 *   /echo...          streams the request body back (same Content-Type)
 *   /digest...        reads the body, answers "sha256=HEX bytes=N"
 *   /bytes/N[?chunked] sends N pattern bytes, Content-Length framed unless ?chunked
 *   /headers...       answers the request line and headers as text, and sets hop-by-hop headers
 *   /status/CODE      answers CODE with no body (204, 304 ...)
 *   /slow/MS          answers "slow ok" after MS milliseconds without holding a thread
 *   /hold             never answers until release() (counts arrivals in holds())
 *   /close            closes the connection without answering
 * </pre>
 * Connections that carried requests are counted, so tests can assert on connection reuse.
 */
public final class TestUpstream implements AutoCloseable {
    private final HttpServer server = new HttpServer();
    private final NetworkListener listener = new NetworkListener("test-upstream", "127.0.0.1", 0);
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final java.util.Set<Integer> connectionPorts = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final AtomicInteger holds = new AtomicInteger();
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicInteger mostOpen = new AtomicInteger();
    private volatile CountDownLatch release = new CountDownLatch(1);
    private volatile CountDownLatch firstClose = new CountDownLatch(1);

    public static TestUpstream start() throws IOException {
        TestUpstream upstream = new TestUpstream();
        TestTls.secure(upstream.listener);
        upstream.server.addListener(upstream.listener);
        upstream.listener.getTransport().getConnectionMonitoringConfig().addProbes(upstream.new OpenCount());
        upstream.server.getServerConfiguration().addHttpHandler(upstream.new Dispatcher(), "/");
        upstream.server.getServerConfiguration().setMaxPostSize(-1);
        upstream.server.getServerConfiguration().setAllowPayloadForUndefinedHttpMethods(true);
        upstream.server.start();
        return upstream;
    }

    public int port() {
        return listener.getPort();
    }

    public String url(String path) {
        return TestTls.scheme() + "://127.0.0.1:" + port() + path;
    }

    /** Distinct upstream connections that carried at least one request. */
    public int acceptedConnections() {
        return connectionPorts.size();
    }

    /** The most connections the upstream had open at one moment. */
    public int mostOpenAtOnce() {
        return mostOpen.get();
    }

    public int holds() {
        return holds.get();
    }

    /** Lets every request parked on /hold answer. */
    public void release() {
        release.countDown();
    }

    /** Waits until the connection of a request parked on /hold closes. */
    public boolean awaitConnectionClosed(long millis) throws InterruptedException {
        return firstClose.await(millis, TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        release();
        server.shutdownNow();
        scheduler.shutdownNow();
    }

    /** Counts accepted connections while they are open, and the most at once. */
    private final class OpenCount extends org.glassfish.grizzly.ConnectionProbe.Adapter {
        @Override
        public void onAcceptEvent(org.glassfish.grizzly.Connection serverConnection,
                                  org.glassfish.grizzly.Connection clientConnection) {
            mostOpen.accumulateAndGet(open.incrementAndGet(), Math::max);
        }

        @Override
        public void onCloseEvent(org.glassfish.grizzly.Connection connection) {
            if (!(connection instanceof org.glassfish.grizzly.nio.transport.TCPNIOServerConnection)) {
                open.decrementAndGet();
            }
        }
    }

    private final class Dispatcher extends HttpHandler {
        @Override
        public void service(Request request, Response response) throws Exception {
            connectionPorts.add(request.getRemotePort());
            String uri = request.getRequestURI();
            if (uri.startsWith("/echo")) {
                echo(request, response);
            } else if (uri.startsWith("/digest")) {
                digest(request, response);
            } else if (uri.startsWith("/bytes/")) {
                bytes(request, response, Long.parseLong(uri.substring("/bytes/".length())));
            } else if (uri.startsWith("/headers")) {
                headers(request, response);
            } else if (uri.startsWith("/status/")) {
                response.setStatus(Integer.parseInt(uri.substring("/status/".length())));
                response.setHeader("ETag", "\"v1\"");
            } else if (uri.startsWith("/slow/")) {
                slow(response, Long.parseLong(uri.substring("/slow/".length())));
            } else if (uri.startsWith("/hold")) {
                request.getContext().getConnection().addCloseListener(
                        (Connection.CloseListener) (closedConnection, type) -> firstClose.countDown());
                holds.incrementAndGet();
                response.suspend();
                scheduler.execute(() -> {
                    try {
                        release.await();
                        response.getWriter().write("held ok");
                    } catch (Exception ignored) {
                        // the proxy may have closed the connection: that is what some tests check
                    } finally {
                        response.resume();
                    }
                });
            } else if (uri.startsWith("/close")) {
                request.getContext().getConnection().closeSilently();
            } else {
                response.setStatus(404);
            }
        }

        private void echo(Request request, Response response) throws IOException {
            if (request.getContentType() != null) {
                response.setContentType(request.getContentType());
            }
            InputStream in = request.getInputStream();
            OutputStream out = response.getOutputStream();
            byte[] buffer = new byte[64 * 1024];
            for (int n; (n = in.read(buffer)) != -1; ) {
                out.write(buffer, 0, n);
            }
        }

        private void digest(Request request, Response response) throws Exception {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            InputStream in = request.getInputStream();
            byte[] buffer = new byte[64 * 1024];
            long total = 0;
            for (int n; (n = in.read(buffer)) != -1; ) {
                sha.update(buffer, 0, n);
                total += n;
            }
            response.setContentType("text/plain");
            response.getWriter().write("sha256=" + Patterns.hex(sha.digest()) + " bytes=" + total);
        }

        private void bytes(Request request, Response response, long count) throws IOException {
            if (request.getParameter("chunked") == null) {
                response.setContentLengthLong(count);
            }
            response.setContentType("application/octet-stream");
            if (request.getMethod().getMethodString().equals("HEAD")) {
                return;
            }
            OutputStream out = response.getOutputStream();
            InputStream pattern = Patterns.stream(count);
            byte[] buffer = new byte[64 * 1024];
            for (int n; (n = pattern.read(buffer)) != -1; ) {
                out.write(buffer, 0, n);
            }
        }

        private void headers(Request request, Response response) throws IOException {
            StringBuilder text = new StringBuilder()
                    .append(request.getMethod().getMethodString()).append(' ').append(request.getRequestURI());
            if (request.getQueryString() != null) {
                text.append('?').append(request.getQueryString());
            }
            text.append('\n');
            for (String name : request.getHeaderNames()) {
                for (String value : request.getHeaders(name)) {
                    text.append(name.toLowerCase()).append(": ").append(value).append('\n');
                }
            }
            response.setHeader("Connection", "x-drop-me");
            response.setHeader("X-Drop-Me", "1");
            response.setHeader("Keep-Alive", "timeout=5");
            response.setHeader("Proxy-Connection", "keep-alive");
            response.setHeader("Trailer", "x-trailer");
            response.setHeader("X-End-To-End", "kept");
            response.addHeader("X-Multi", "a");
            response.addHeader("X-Multi", "b");
            response.setContentType("text/plain");
            byte[] body = text.toString().getBytes(StandardCharsets.UTF_8);
            response.setContentLength(body.length);
            response.getOutputStream().write(body);
        }

        private void slow(Response response, long millis) {
            response.suspend();
            scheduler.schedule(() -> {
                try {
                    response.getWriter().write("slow ok");
                } catch (IOException ignored) {
                    // connection closed by the proxy, as timeout tests expect
                } finally {
                    response.resume();
                }
            }, millis, TimeUnit.MILLISECONDS);
        }
    }
}
