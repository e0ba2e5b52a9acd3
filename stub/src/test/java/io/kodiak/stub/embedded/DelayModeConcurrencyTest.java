package io.kodiak.stub.embedded;

import static io.kodiak.stub.embedded.StubAnswers.assertAnswers;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kodiak.stub.DelayMode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** What the two modes are for: async waits hold no thread, blocking waits each hold one. */
class DelayModeConcurrencyTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    /** Sends {@code count} requests at once and returns how long the whole batch took, after checking each answer. */
    private static long batchMillis(StubServer server, int count) throws Exception {
        List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < count; i++) {
            HttpRequest request = HttpRequest.newBuilder(URI.create(server.url())).timeout(Duration.ofSeconds(30))
                    .header("Content-Type", "text/plain").POST(BodyPublishers.ofString("request " + i)).build();
            answers.add(CLIENT.sendAsync(request, BodyHandlers.ofString()));
        }
        CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        long elapsed = (System.nanoTime() - start) / 1_000_000;
        for (int i = 0; i < count; i++) {
            HttpResponse<String> response = answers.get(i).join();
            assertEquals(200, response.statusCode());
            assertAnswers("request " + i, response.body());
        }
        return elapsed;
    }

    @Test
    void asyncModeLetsHundredsWaitAtOnceOnTwoThreads() throws Exception {
        int delayMs = 300;
        int requests = 500;
        try (StubServer server = StubServer.start(StubServerConfig.ephemeral(delayMs, DelayMode.ASYNC, 2))) {
            batchMillis(server, 1); // connection set-up and class loading out of the measured batch
            long elapsed = batchMillis(server, requests);
            // Serialised on 2 threads this would take requests × delay / 2 = 75 s; concurrent it is about one delay.
            assertTrue(elapsed >= delayMs, "batch took " + elapsed + " ms, less than one delay");
            assertTrue(elapsed < 10L * delayMs, requests + " requests took " + elapsed + " ms, expected about "
                    + delayMs + " ms (not serialised)");
        }
    }

    @Test
    void blockingModeHoldsOneThreadPerWaitingRequest() throws Exception {
        int delayMs = 200;
        int threads = 4;
        int requests = 12;
        try (StubServer server = StubServer.start(StubServerConfig.ephemeral(delayMs, DelayMode.BLOCKING, threads))) {
            long elapsed = batchMillis(server, requests);
            // 12 sleeping requests on 4 threads need at least 3 consecutive delays: the pool is the bottleneck.
            long rounds = requests / threads;
            assertTrue(elapsed >= rounds * delayMs, "batch took " + elapsed + " ms, less than " + rounds
                    + " delays: requests did not each hold a thread");
        }
    }
}
