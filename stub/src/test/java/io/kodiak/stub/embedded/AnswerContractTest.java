package io.kodiak.stub.embedded;

import static io.kodiak.stub.embedded.StubAnswers.assertAnswers;
import static io.kodiak.stub.embedded.StubAnswers.assertPlainUtf8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kodiak.stub.DelayMode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The answer contract, identical in both delay modes. */
class AnswerContractTest {
    static final int DELAY_MS = 200;
    private static final Map<DelayMode, StubServer> SERVERS = new EnumMap<>(DelayMode.class);
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void startOneStubPerMode() throws IOException {
        for (DelayMode mode : DelayMode.values()) {
            SERVERS.put(mode, StubServer.start(StubServerConfig.ephemeral(DELAY_MS, mode, 8)));
        }
    }

    @AfterAll
    static void stopStubs() {
        SERVERS.values().forEach(StubServer::close);
    }

    private static HttpResponse<String> send(DelayMode mode, String method, BodyPublisher body, String contentType)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(SERVERS.get(mode).url()))
                .timeout(Duration.ofSeconds(10)).method(method, body);
        if (contentType != null) {
            request.header("Content-Type", contentType);
        }
        return CLIENT.send(request.build(), BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @EnumSource(DelayMode.class)
    void answersTheOriginalScenarioRequestAfterTheDelay(DelayMode mode) throws Exception {
        long start = System.nanoTime();
        HttpResponse<String> response = send(mode, "POST", BodyPublishers.ofString("test1"), "text/plain");
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;

        assertEquals(200, response.statusCode());
        assertTrue(StubAnswers.ANSWER.matcher(response.body()).matches(), response.body());
        assertTrue(response.body().matches("test1-appended by servlet \\d{4}-\\d{2}-\\d{2} - \\d{2}:\\d{2}:\\d{2}"),
                response.body());
        assertAnswers("test1", response.body());
        assertPlainUtf8(response.headers().firstValue("Content-Type").orElseThrow());
        assertTrue(elapsedMs >= DELAY_MS, "answered after " + elapsedMs + " ms, before the " + DELAY_MS + " ms delay");
    }

    @ParameterizedTest
    @EnumSource(DelayMode.class)
    void everyMethodIsAnsweredTheSameWay(DelayMode mode) throws Exception {
        for (String method : new String[] {"GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "PROPFIND",
                "MKCOL", "X-KODIAK-ANYTHING"}) {
            HttpResponse<String> response = send(mode, method, BodyPublishers.ofString("via " + method), "text/plain");
            assertEquals(200, response.statusCode(), method);
            assertAnswers("via " + method, response.body());
        }
    }

    @ParameterizedTest
    @EnumSource(DelayMode.class)
    void headGetsTheHeadersOfTheAnswerWithoutItsBody(DelayMode mode) throws Exception {
        HttpResponse<String> response = send(mode, "HEAD", BodyPublishers.noBody(), null);
        assertEquals(200, response.statusCode());
        assertEquals("", response.body());
        long length = response.headers().firstValueAsLong("Content-Length").orElseThrow();
        assertEquals("-appended by servlet yyyy-MM-dd - HH:mm:ss".length(), length);
    }

    @ParameterizedTest
    @EnumSource(DelayMode.class)
    void anEmptyBodyGivesTheMarkAlone(DelayMode mode) throws Exception {
        HttpResponse<String> response = send(mode, "GET", BodyPublishers.noBody(), null);
        assertEquals(200, response.statusCode());
        assertAnswers("", response.body());
    }

    @ParameterizedTest
    @EnumSource(DelayMode.class)
    void utf8TextComesBackIntact(DelayMode mode) throws Exception {
        String text = "Grüße, Ελληνικά, 日本語, 🐻 – kodiak";
        HttpResponse<String> response = send(mode, "POST", BodyPublishers.ofString(text, StandardCharsets.UTF_8),
                "text/plain; charset=UTF-8");
        assertAnswers(text, response.body());
    }

    @ParameterizedTest
    @EnumSource(DelayMode.class)
    void withoutACharsetTheBodyIsReadAsUtf8(DelayMode mode) throws Exception {
        HttpResponse<String> response = send(mode, "POST", BodyPublishers.ofString("ça ✓", StandardCharsets.UTF_8),
                "text/plain");
        assertAnswers("ça ✓", response.body());
    }

    @ParameterizedTest
    @EnumSource(DelayMode.class)
    void theDeclaredCharsetIsHonoured(DelayMode mode) throws Exception {
        HttpResponse<String> response = send(mode, "POST", BodyPublishers.ofByteArray(new byte[] {'c', (byte) 0xE9}),
                "text/plain; charset=ISO-8859-1");
        assertAnswers("cé", response.body());
    }

    @ParameterizedTest
    @EnumSource(DelayMode.class)
    void invalidBytesAreAnsweredWithReplacementCharacters(DelayMode mode) throws Exception {
        byte[] invalidUtf8 = {'a', (byte) 0xFF, (byte) 0xC3, 'b', (byte) 0xE2, (byte) 0x82};
        HttpResponse<String> response = send(mode, "POST", BodyPublishers.ofByteArray(invalidUtf8),
                "text/plain; charset=UTF-8");
        assertEquals(200, response.statusCode());
        assertAnswers("a\uFFFD\uFFFDb\uFFFD", response.body());
    }

    @ParameterizedTest
    @EnumSource(DelayMode.class)
    void anUnknownCharsetIsReadAsUtf8(DelayMode mode) throws Exception {
        HttpResponse<String> response = send(mode, "POST", BodyPublishers.ofString("ok ✓", StandardCharsets.UTF_8),
                "text/plain; charset=x-no-such-charset");
        assertEquals(200, response.statusCode());
        assertAnswers("ok ✓", response.body());
    }

    @ParameterizedTest
    @EnumSource(DelayMode.class)
    void aLargeBodyIsEchoedWhole(DelayMode mode) throws Exception {
        String body = "0123456789abcdef".repeat(64 * 1024); // 1 MiB, more than any socket buffer
        HttpResponse<String> response = send(mode, "POST", BodyPublishers.ofString(body), "text/plain");
        assertEquals(200, response.statusCode());
        assertAnswers(body, response.body());
    }
}
