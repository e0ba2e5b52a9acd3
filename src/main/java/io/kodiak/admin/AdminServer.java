package io.kodiak.admin;

import io.kodiak.config.ProxyConfig;
import org.glassfish.grizzly.http.server.HttpHandler;
import org.glassfish.grizzly.http.server.HttpServer;
import org.glassfish.grizzly.http.server.NetworkListener;
import org.glassfish.grizzly.http.server.ServerConfiguration;
import org.glassfish.grizzly.nio.transport.TCPNIOTransport;
import org.glassfish.grizzly.threadpool.ThreadPoolConfig;

import java.io.IOException;
import java.util.function.Supplier;

/**
 * The admin listener: a small Grizzly HttpServer of its own (own selector, own two worker
 * threads), so a scrape never runs on, or waits for, the proxy's I/O threads.
 */
final class AdminServer {
    private final HttpServer server = new HttpServer();
    private final NetworkListener listener;

    AdminServer(ProxyConfig.Admin settings, Health health, Supplier<String> metricsExposition, HttpHandler upstreams,
                HttpHandler status, HttpHandler reload, String version) {
        listener = new NetworkListener("kodiak-admin", settings.host(), settings.port());
        TCPNIOTransport transport = listener.getTransport();
        transport.setSelectorRunnersCount(1);
        transport.setWorkerThreadPoolConfig(ThreadPoolConfig.defaultConfig().copy()
                .setPoolName("kodiak-admin")
                .setCorePoolSize(1)
                .setMaxPoolSize(2));
        // TRACE answered as any method the endpoints do not take, not by Grizzly's own 405.
        listener.registerAddOn(new TraceRefusal());
        server.addListener(listener);

        ServerConfiguration configuration = server.getServerConfiguration();
        configuration.setName("kodiak-admin");
        configuration.setHttpServerName("Kodiak");
        configuration.setHttpServerVersion(version);
        configuration.setJmxEnabled(false);
        configuration.addHttpHandler(new HealthHandler(health), "/health");
        configuration.addHttpHandler(new MetricsHandler(metricsExposition), "/metrics");
        configuration.addHttpHandler(upstreams, "/upstreams");
        configuration.addHttpHandler(status, "/status");
        configuration.addHttpHandler(reload, "/reload");
        configuration.addHttpHandler(new NotFoundHandler(), "/");
    }

    void start() throws IOException {
        server.start();
    }

    /** The bound port (differs from the configured one when that is 0, as in tests). */
    int port() {
        return listener.getPort();
    }

    void stop() {
        server.shutdownNow();
    }

    /**
     * Stops accepting and closes once the requests being served are answered: the old address of
     * a reload that moved the listener, whose own POST /reload still waits for its answer.
     */
    void stopAfterServing() {
        server.shutdown(5, java.util.concurrent.TimeUnit.SECONDS);
    }
}
