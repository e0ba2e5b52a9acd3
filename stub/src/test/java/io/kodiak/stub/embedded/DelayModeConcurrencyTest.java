package io.kodiak.stub.embedded;

import static io.kodiak.stub.embedded.StubAnswers.assertAnswers;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kodiak.stub.DelayMode;
import io.kodiak.stub.InFlight;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** What the two modes are for: async waits hold no thread, blocking waits each hold one. */
class DelayModeConcurrencyTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    private static List<CompletableFuture<HttpResponse<String>>> sendAll(StubServer server, int count) {
        List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            HttpRequest request = HttpRequest.newBuilder(URI.create(server.url())).timeout(Duration.ofSeconds(60))
                    .header("Content-Type", "text/plain").POST(BodyPublishers.ofString("request " + i)).build();
            answers.add(CLIENT.sendAsync(request, BodyHandlers.ofString()));
        }
        return answers;
    }

    /** Waits for every answer and checks each one. */
    private static void assertAllAnswered(List<CompletableFuture<HttpResponse<String>>> answers) throws Exception {
        CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        for (int i = 0; i < answers.size(); i++) {
            HttpResponse<String> response = answers.get(i).join();
            assertEquals(200, response.statusCode());
            assertAnswers("request " + i, response.body());
        }
    }

    /** Sends {@code count} requests at once and returns how long the whole batch took, after checking each answer. */
    private static long batchMillis(StubServer server, int count) throws Exception {
        long start = System.nanoTime();
        List<CompletableFuture<HttpResponse<String>>> answers = sendAll(server, count);
        CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        long elapsed = (System.nanoTime() - start) / 1_000_000;
        assertAllAnswered(answers);
        return elapsed;
    }

    @Test
    void asyncModeLetsHundredsWaitAtOnceOnTwoThreads() throws Exception {
        int requests = 500;
        // The delays run on this executor; while its only thread is held no delay can end, so every request
        // stays waiting until the test lets go, however slowly the machine sends them (no race with a clock).
        ScheduledExecutorService delays = Executors.newSingleThreadScheduledExecutor();
        CountDownLatch clockHeld = new CountDownLatch(1);
        delays.execute(() -> {
            try {
                clockHeld.await();
            } catch (InterruptedException stopping) {
                Thread.currentThread().interrupt();
            }
        });
        try (StubServer server = StubServer.start(StubServerConfig.ephemeral(300, DelayMode.ASYNC, 2), delays)) {
            List<CompletableFuture<HttpResponse<String>>> answers = sendAll(server, requests);
            // The in-flight count goes up on a Tomcat worker thread as each request arrives. With 2 workers, a
            // wait that held its thread would stop the count at 2 (as blocking mode does); 500 means none is held.
            InFlight inFlight = server.inFlight();
            assertTrue(inFlight.await(n -> n == requests, Duration.ofSeconds(60)),
                    () -> inFlight.count() + " of " + requests + " requests waiting at once on 2 threads");
            assertTrue(answers.stream().noneMatch(CompletableFuture::isDone), "an answer came before its delay ended");
            clockHeld.countDown();
            assertAllAnswered(answers);
        } finally {
            clockHeld.countDown();
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
