package io.kodiak.admin;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kodiak.Kodiak;
import io.kodiak.config.ProxyConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * POST /reload over a real admin listener: JSON in and out, allowed from loopback, and from another
 * address (this host's own non-loopback one, the listener on 0.0.0.0) only with the token.
 */
class ReloadEndpointTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SECRET = "tok-81f2e0c4";

    @TempDir
    Path dir;
    private final List<String> asked = new CopyOnWriteArrayList<>();
    private Kodiak kodiak;
    private Monitoring monitoring;
    private final Logger guardLog = (Logger) LoggerFactory.getLogger(ReloadGuard.class);
    private final ListAppender<ILoggingEvent> refusals = new ListAppender<>();

    /** Answers applied, generation 2, for whichever file it was asked. */
    private final ReloadService service = file -> {
        asked.add(String.valueOf(file));
        return CompletableFuture.completedFuture(new ReloadService.Answer("applied", 2, file == null ? "/etc/in-service.conf" : file,
                List.of("route added: /b/ -> http://127.0.0.1:1/"), List.of("proxy.listener.io-strategy")));
    };

    private void start(String hocon) throws Exception {
        ProxyConfig config = AdminHarness.config(hocon);
        monitoring = new Monitoring(config);
        kodiak = new Kodiak(config, monitoring.observer());
        monitoring.start(kodiak, service);
        refusals.start();
        guardLog.addAppender(refusals);
    }

    @AfterEach
    void stop() {
        guardLog.detachAppender(refusals);
        if (monitoring != null) {
            monitoring.stop();
        }
    }

    private HttpResponse<String> post(String host, String body, String token) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://" + host + ":" + monitoring.port() + "/reload"))
                .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                .POST(body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void fromLoopbackAReloadIsAskedForAndAnsweredInJson() throws Exception {
        start("");

        HttpResponse<String> plain = post("127.0.0.1", null, null);
        assertEquals(200, plain.statusCode(), plain.body());
        assertEquals("application/json", plain.headers().firstValue("Content-Type").orElse(""));
        JsonNode answer = JSON.readTree(plain.body());
        assertEquals("applied", answer.get("result").asText());
        assertEquals(2, answer.get("generation").asLong());
        assertEquals("/etc/in-service.conf", answer.get("config_file").asText());
        assertEquals("route added: /b/ -> http://127.0.0.1:1/", answer.get("lines").get(0).asText());
        assertEquals("proxy.listener.io-strategy", answer.get("restart_only").get(0).asText());

        // Another file is one for the daemon to read: the token is asked for even from loopback.
        HttpResponse<String> named = post("127.0.0.1", "{\"config_file\":\"/srv/other.conf\"}", null);
        assertEquals(403, named.statusCode(), named.body());
        assertEquals(List.of("null"), asked);

        assertEquals(400, post("127.0.0.1", "{\"config_file\":\"relative.conf\"}", null).statusCode());
        assertEquals(400, post("127.0.0.1", "not json", null).statusCode());
        HttpResponse<String> get = CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + monitoring.port() + "/reload"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(405, get.statusCode());
        assertEquals(1, asked.size(), "neither a bad body, nor a file named without the token, nor a GET reloads");
    }

    @Test
    void fromAnotherAddressOnlyTheTokenReloads() throws Exception {
        Optional<String> address = io.kodiak.support.LocalAddresses.nonLoopback();
        assumeTrue(address.isPresent(), "this host has no non-loopback address to connect from");
        Path tokenFile = Files.writeString(dir.resolve("admin.token"), SECRET + "\n");
        start("proxy.admin.host = \"0.0.0.0\"\nproxy.admin.token-file = \"" + tokenFile + "\"\n");

        HttpResponse<String> none = post(address.get(), null, null);
        assertEquals(403, none.statusCode(), none.body());
        assertEquals("forbidden", JSON.readTree(none.body()).get("result").asText());
        HttpResponse<String> wrong = post(address.get(), null, SECRET + "0");
        assertEquals(403, wrong.statusCode(), wrong.body());
        assertEquals(List.of(), asked, "nothing was reloaded");

        HttpResponse<String> right = post(address.get(), null, SECRET);
        assertEquals(200, right.statusCode(), right.body());
        assertEquals(1, asked.size());

        List<String> logged = refusals.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
        assertEquals(2, logged.size(), "one line per refusal: " + logged);
        logged.forEach(line -> {
            assertTrue(line.contains("POST /reload refused from " + address.get()), line);
            assertFalse(line.contains(SECRET), line);
        });
        assertEquals(200, CLIENT.send(HttpRequest.newBuilder(URI.create("http://" + address.get() + ":" + monitoring.port()
                + "/upstreams")).build(), HttpResponse.BodyHandlers.ofString()).statusCode(), "the read-only endpoints ask for nothing");
    }
}
