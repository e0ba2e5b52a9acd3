package io.kodiak.listener;

import io.kodiak.support.Patterns;
import io.kodiak.support.ProxyHarness;
import io.kodiak.support.TestUpstream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * With each IOStrategy the listener can run (each hands the exchange between threads differently)
 * and each memory manager (a pooled buffer handed back too early would be overwritten by the next
 * read while still queued), concurrent exchanges stream bodies intact both ways.
 */
class TransportSettingsTest {
    private static final long MIB = 1024 * 1024;
    private static final int CLIENTS = 8;

    @ParameterizedTest(name = "{0}, {1} buffers")
    @CsvSource({"same-thread, heap", "worker-thread, heap", "dynamic, heap", "leader-follower, heap",
            "same-thread, exact", "worker-thread, exact",
            "same-thread, pooled", "worker-thread, pooled", "dynamic, pooled", "leader-follower, pooled",
            "same-thread, loop", "worker-thread, loop"})
    void concurrentUploadsAndDownloadsArriveIntact(String strategy, String memoryManager) throws Exception {
        try (TestUpstream upstream = TestUpstream.start();
             ProxyHarness proxy = ProxyHarness.forUpstream(upstream.url("/"),
                     "proxy.listener.io-strategy = " + strategy + "\nproxy.listener.selector-threads = 2"
                             + "\nproxy.buffers.memory-manager = " + memoryManager)) {
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int i = 0; i < CLIENTS; i++) {
                    done.add(clients.submit(() -> {
                        for (int round = 0; round < 3; round++) {
                            HttpResponse<String> up = http.send(HttpRequest.newBuilder(proxy.uri("/digest"))
                                    .POST(HttpRequest.BodyPublishers.fromPublisher(
                                            HttpRequest.BodyPublishers.ofInputStream(() -> Patterns.stream(MIB)), MIB))
                                    .build(), HttpResponse.BodyHandlers.ofString());
                            assertEquals(200, up.statusCode());
                            assertEquals("sha256=" + Patterns.sha256Of(MIB) + " bytes=" + MIB, up.body());

                            HttpResponse<InputStream> down = http.send(
                                    HttpRequest.newBuilder(proxy.uri("/bytes/" + MIB)).build(),
                                    HttpResponse.BodyHandlers.ofInputStream());
                            assertEquals(200, down.statusCode());
                            try (InputStream body = down.body()) {
                                assertEquals(Patterns.sha256Of(MIB), Patterns.sha256(body));
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> client : done) {
                    client.get();
                }
            } finally {
                clients.shutdownNow();
            }
        }
    }
}
