package io.kodiak.daemon;

import io.kodiak.Kodiak;
import io.kodiak.admin.Monitoring;
import io.kodiak.config.ConfigLoader;
import io.kodiak.config.ProxyConfig;
import io.kodiak.support.GroupServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The daemon's reload as bin/proxy.sh and SIGHUP use it: Kodiak and its admin side wired as Main
 * wires them, a configuration file rewritten between reloads, and what the outcome, the admin
 * endpoints and the proxy then say.
 */
class ReloaderTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    Path dir;
    private GroupServer a;
    private GroupServer b;
    private Kodiak kodiak;
    private Monitoring monitoring;
    private Reloader reloader;
    private File file;

    @BeforeEach
    void start() throws IOException {
        a = new GroupServer("a", "/health");
        b = new GroupServer("b", "/health");
        file = dir.resolve("proxy.conf").toFile();
        write(group(a, b) + "proxy.routes = [ { prefix = \"/\", upstream = \"http://app/\" },"
                + " { prefix = \"/old/\", upstream = \"" + a.url() + "/\" } ]\n");
        ProxyConfig config = ConfigLoader.load(file);
        monitoring = new Monitoring(config);
        kodiak = new Kodiak(config, monitoring.observer(), monitoring.tlsObserver());
        monitoring.start(kodiak);
        kodiak.start();
        monitoring.proxyListening();
        reloader = new Reloader(kodiak, monitoring, file, LogConfiguration.fromSystemProperty(), null);
    }

    @AfterEach
    void stop() throws IOException {
        kodiak.stop();
        monitoring.stop();
        a.close();
        b.close();
    }

    private static String group(GroupServer... servers) {
        StringBuilder list = new StringBuilder();
        for (GroupServer server : servers) {
            list.append(list.isEmpty() ? "" : ", ").append('"').append(server.url()).append('"');
        }
        return "proxy.upstreams.app.servers = [ " + list + " ]\n";
    }

    private void write(String hocon) throws IOException {
        Files.writeString(file.toPath(), "proxy.listener.port = 0\nproxy.admin.port = 0\nproxy.shutdown.grace-period = 5s\n"
                + hocon);
    }

    private HttpResponse<String> admin(String path) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + monitoring.port() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private String proxied(String path) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + kodiak.port() + path)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    @Test
    void anAppliedReloadSaysWhatChangedAndTheAdminSideFollows() throws Exception {
        proxied("/old/x");
        // The exchange is counted on its loop once its last bytes are written: a client that has
        // read them may ask /metrics a moment before.
        io.kodiak.support.Await.await(() -> {
            try {
                return admin("/metrics").body().contains("kodiak_requests_total{route=\"/old/\",status_class=\"2xx\"} 1.0");
            } catch (Exception e) {
                return false;
            }
        }, "the request counted under its route");

        write(group(a) + "proxy.upstream.response-timeout = 7s\n"
                + "proxy.routes = [ { prefix = \"/\", upstream = \"http://app/\" },"
                + " { prefix = \"/new/\", upstream = \"" + b.url() + "/\" } ]\n");
        Reloader.Outcome outcome = reloader.reload(null);

        assertEquals(Reloader.Result.APPLIED, outcome.result(), outcome.lines().toString());
        assertEquals(2, outcome.generation());
        String aAt = "127.0.0.1:" + URI.create(a.url()).getPort();
        String bAt = "127.0.0.1:" + URI.create(b.url()).getPort();
        // A route's own host:port is a group of one, named after it.
        assertEquals(List.of("route added: /new/ -> " + b.url() + "/", "route removed: /old/ -> " + a.url() + "/",
                "server added: " + bAt, "server removed (draining): app " + bAt, "server removed (draining): " + aAt,
                "key changed: proxy.upstream.response-timeout",
                "key changed: proxy.upstreams.app.servers"), outcome.lines());

        assertEquals("b", proxied("/new/y"));
        assertEquals("a", proxied("/any"));
        assertEquals("a", proxied("/any"), "b left the group");
        String health = admin("/health").body();
        assertTrue(health.contains("\"generation\":2,\"loaded_at\":\""), health);
        String metrics = admin("/metrics").body();
        assertTrue(metrics.contains("kodiak_config_generation 2.0"), metrics);
        assertTrue(metrics.contains("kodiak_config_reloads_total{result=\"applied\"} 1.0"), metrics);
        assertTrue(metrics.contains("kodiak_requests_total{route=\"/new/\",status_class=\"2xx\"} 1.0"), metrics);
        assertFalse(metrics.contains("route=\"/old/\""), "the removed route's series are gone");
        assertTrue(metrics.contains("group=\"app\",upstream=\"127.0.0.1:" + URI.create(a.url()).getPort() + "\""), metrics);
        assertFalse(metrics.contains("group=\"app\",upstream=\"127.0.0.1:" + URI.create(b.url()).getPort() + "\""),
                "the removed server's series are gone");
        assertTrue(admin("/upstreams").body().contains("\"servers\":[{\"url\":\"" + a.url() + "\""));
    }

    @Test
    void theSettingsFileShowsTheAdminListenerAsItRunsNotAsTheReloadedFileSays() throws Exception {
        java.nio.file.Path settings = dir.resolve("proxy.settings");
        Reloader recording = new Reloader(kodiak, monitoring, file, LogConfiguration.fromSystemProperty(), settings);
        write(group(a, b) + "proxy.routes = [ { prefix = \"/\", upstream = \"http://app/\" } ]\nproxy.admin.enabled = false\n");
        Reloader.Outcome outcome = recording.reload(null);
        assertEquals(Reloader.Result.APPLIED, outcome.result());
        assertTrue(outcome.lines().stream().anyMatch(line -> line.startsWith("proxy.admin.enabled changed")), outcome.lines().toString());
        String written = Files.readString(settings);
        // admin.enabled is restart-only: the admin listener still runs, and status must say so.
        assertTrue(written.contains("admin_enabled=true\n"), written);
        assertEquals(200, admin("/health").statusCode());
    }

    @Test
    void resolverSettingsTakeARestartAndTheReloadSaysSo() throws Exception {
        write(group(a, b) + "proxy.routes = [ { prefix = \"/\", upstream = \"http://app/\" } ]\n"
                + "proxy.resolver { servers = [\"127.0.0.1:5353\"], valid = 10s, timeout = 1s }\n");
        Reloader.Outcome outcome = reloader.reload(null);
        assertEquals(Reloader.Result.APPLIED, outcome.result());
        for (String key : List.of("proxy.resolver.servers", "proxy.resolver.valid", "proxy.resolver.timeout")) {
            assertTrue(outcome.lines().stream().anyMatch(line -> line.startsWith(key + " changed: it applies at the next restart")),
                    outcome.lines().toString());
        }
        assertEquals(Duration.ofSeconds(30), kodiak.discovery().settings().valid(), "the resolver in service stays");
    }

    @Test
    void tracingIsRestartOnlyAndTheSettingsFileShowsItAsItRuns() throws Exception {
        java.nio.file.Path settings = dir.resolve("proxy.settings");
        Reloader recording = new Reloader(kodiak, monitoring, file, LogConfiguration.fromSystemProperty(), settings);
        write(group(a, b) + "proxy.routes = [ { prefix = \"/\", upstream = \"http://app/\" } ]\n"
                + "proxy.tracing { enabled = true, sampler = 0.5, otlp.endpoint = \"http://127.0.0.1:1/v1/traces\" }\n");
        Reloader.Outcome outcome = recording.reload(null);
        assertEquals(Reloader.Result.APPLIED, outcome.result());
        for (String key : List.of("proxy.tracing.enabled", "proxy.tracing.sampler", "proxy.tracing.otlp.endpoint")) {
            assertTrue(outcome.lines().contains(key + " changed: it applies at the next restart (the running value stays)"),
                    outcome.lines().toString());
        }
        assertEquals(null, kodiak.tracing(), "still off until a restart");
        String written = Files.readString(settings);
        assertTrue(written.contains("tracing_enabled=false\n"), written);
        assertFalse(written.contains("tracing_sampler"), written);
    }

    @Test
    void aRefusedReloadNamesEveryBadKeyAndChangesNothing() throws Exception {
        write("proxy.routes = [ { prefix = \"/\", upstream = \"http://nowhere/\" } ]\nproxy.listener.max-body-size = lots\n");
        Reloader.Outcome outcome = reloader.reload(null);

        assertEquals(Reloader.Result.REFUSED, outcome.result());
        assertEquals(1, outcome.generation());
        String said = String.join("\n", outcome.lines());
        assertTrue(said.contains("proxy.listener.max-body-size"), said);
        assertTrue(said.contains("proxy.routes[0].upstream"), said);
        assertEquals("a", proxied("/old/z"), "the running configuration serves on");
        assertTrue(admin("/metrics").body().contains("kodiak_config_reloads_total{result=\"refused\"} 1.0"));
        assertTrue(admin("/health").body().contains("\"generation\":1,"));
    }

    @Test
    void theAdminListenerMovesToItsNewAddressBeforeTheOldOneCloses() throws Exception {
        int oldPort = monitoring.port();
        int newPort;
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0)) {
            newPort = probe.getLocalPort();
        }
        Files.writeString(file.toPath(), "proxy.listener.port = 0\nproxy.admin.port = " + newPort + "\n"
                + "proxy.routes = [ { prefix = \"/\", upstream = \"" + a.url() + "/\" } ]\n");
        Reloader.Outcome outcome = reloader.reload(null);

        assertEquals(Reloader.Result.APPLIED, outcome.result(), outcome.lines().toString());
        assertTrue(outcome.lines().contains("admin listener moved to 127.0.0.1:" + newPort), outcome.lines().toString());
        assertEquals(newPort, monitoring.port());
        assertTrue(admin("/health").body().contains("\"generation\":2,"));
        // Closed on its selector's next turn, moments after.
        io.kodiak.support.Await.await(() -> {
            try (java.net.Socket ignored = new java.net.Socket("127.0.0.1", oldPort)) {
                return false;
            } catch (IOException refused) {
                return true;
            }
        }, "the old admin address to close");
    }

    @Test
    void aReloadFromAnotherFileMakesItTheFileInService() throws Exception {
        File other = dir.resolve("other.conf").toFile();
        Files.writeString(other.toPath(), "proxy.listener.port = 0\nproxy.admin.port = 0\n"
                + "proxy.routes = [ { prefix = \"/\", upstream = \"" + b.url() + "/\" } ]\n");
        assertEquals(Reloader.Result.APPLIED, reloader.reload(other).result());
        assertEquals("b", proxied("/x"));

        Reloader.Outcome again = reloader.reload(null);
        assertEquals(other, again.file(), "a plain reload re-reads the file now in service");
        assertEquals(List.of(), again.lines(), "nothing changed");
        assertEquals(3, again.generation());
    }
}
