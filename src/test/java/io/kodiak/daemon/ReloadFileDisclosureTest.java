package io.kodiak.daemon;

import io.kodiak.Kodiak;
import io.kodiak.admin.Monitoring;
import io.kodiak.config.ConfigLoader;
import io.kodiak.config.ProxyConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * POST /reload {"config_file": ...} makes the daemon read a file: a file that is not a
 * configuration must not come back through the refusal (Typesafe Config words a parse error with
 * the file's first tokens: "Key 'SECRET' may not be followed by token"). Naming a file takes the
 * admin token even from loopback, and with the token the parse error names the line only.
 * (Found by the review of 2026-11-29.)
 */
class ReloadFileDisclosureTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    Path dir;
    private Kodiak kodiak;
    private Monitoring monitoring;

    @AfterEach
    void stop() {
        if (kodiak != null) {
            kodiak.stop();
        }
        if (monitoring != null) {
            monitoring.stop();
        }
    }

    @Test
    void aLoopbackCallerWithoutTheTokenMayNotNameAFile() throws Exception {
        String secret = "s3cr3t-admin-token-XYZ";
        Path token = Files.writeString(dir.resolve("admin.token"), secret + "\n");
        Path file = Files.writeString(dir.resolve("proxy.conf"), "proxy.listener.port = 0\nproxy.admin.port = 0\n"
                + "proxy.admin.token-file = \"" + token + "\"\nproxy.shutdown.grace-period = 1s\n"
                + "proxy.routes = [ { prefix = \"/\", upstream = \"http://127.0.0.1:1/\" } ]\n");
        ProxyConfig config = ConfigLoader.load(file.toFile());
        monitoring = new Monitoring(config);
        CountDownLatch started = new CountDownLatch(1);
        Reloads reloads = Reloads.onSignal(started);
        kodiak = new Kodiak(config, monitoring.observer(), monitoring.tlsObserver());
        monitoring.start(kodiak, reloads);
        kodiak.start();
        reloads.serve(new Reloader(kodiak, monitoring, file.toFile(), LogConfiguration.fromSystemProperty(), null));
        started.countDown();

        HttpResponse<String> answer = CLIENT.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + monitoring.port() + "/reload"))
                .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"config_file\":\"" + token + "\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertFalse(answer.body().contains(secret), "the token file's content came back: " + answer.statusCode() + " " + answer.body());
        assertEquals(403, answer.statusCode(), answer.body());
        assertTrue(answer.body().contains("takes the token"), answer.body());

        // With the token, the file is read, and refused without its words.
        HttpResponse<String> withToken = CLIENT.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + monitoring.port() + "/reload"))
                .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + secret)
                .POST(HttpRequest.BodyPublishers.ofString("{\"config_file\":\"" + token + "\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(422, withToken.statusCode(), withToken.body());
        assertFalse(withToken.body().contains(secret), "the token file's content came back: " + withToken.body());
        assertTrue(withToken.body().contains("not parsed at line"), withToken.body());

        // A body that is not declared JSON is not taken (a form posted cross-site by a browser).
        HttpResponse<String> form = CLIENT.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + monitoring.port() + "/reload"))
                .timeout(Duration.ofSeconds(10)).header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString("{\"config_file\":\"" + file + "\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(400, form.statusCode(), form.body());
    }
}
