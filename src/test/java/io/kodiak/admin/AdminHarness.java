package io.kodiak.admin;

import com.typesafe.config.ConfigFactory;
import io.kodiak.Kodiak;
import io.kodiak.config.ConfigLoader;
import io.kodiak.config.ProxyConfig;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Kodiak plus its admin side wired as Main wires them, both on ephemeral loopback ports. */
final class AdminHarness implements AutoCloseable {
    private static final HttpClient CLIENT = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    final Kodiak kodiak;
    final Monitoring monitoring;

    private AdminHarness(Kodiak kodiak, Monitoring monitoring) {
        this.kodiak = kodiak;
        this.monitoring = monitoring;
    }

    static ProxyConfig config(String hocon) {
        String base = "proxy.listener.port = 0\nproxy.admin.port = 0\nproxy.shutdown.grace-period = 10s\n";
        return ConfigLoader.fromConfig(ConfigFactory.parseString(base + hocon));
    }

    /** Binds the admin listener but does not start the proxy: /health says STARTING. */
    static AdminHarness adminOnly(String hocon) throws IOException {
        ProxyConfig config = config(hocon);
        Monitoring monitoring = new Monitoring(config);
        Kodiak kodiak = new Kodiak(config, monitoring.observer(), monitoring.tlsObserver(), monitoring.http2Observer());
        monitoring.start(kodiak);
        return new AdminHarness(kodiak, monitoring);
    }

    static AdminHarness start(String hocon) throws IOException {
        AdminHarness harness = adminOnly(hocon);
        harness.kodiak.start();
        harness.monitoring.proxyListening();
        return harness;
    }

    HttpResponse<String> admin(String method, String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + monitoring.port() + path))
                .method(method, HttpRequest.BodyPublishers.noBody()));
    }

    HttpResponse<String> admin(String path) throws IOException, InterruptedException {
        return admin("GET", path);
    }

    String metrics() throws IOException, InterruptedException {
        HttpResponse<String> response = admin("/metrics");
        if (response.statusCode() != 200) {
            throw new AssertionError("/metrics answered " + response.statusCode());
        }
        return response.body();
    }

    HttpResponse<String> proxyPost(String path, String body) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + kodiak.port() + path))
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
        return CLIENT.send(request.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Override
    public void close() {
        kodiak.stop();
        monitoring.stop();
    }
}
