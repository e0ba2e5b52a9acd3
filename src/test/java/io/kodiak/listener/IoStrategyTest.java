package io.kodiak.listener;

import io.kodiak.support.Patterns;
import io.kodiak.support.ProxyHarness;
import io.kodiak.support.TestUpstream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
 * With each IOStrategy the listener can run (each hands the exchange between threads differently),
 * concurrent exchanges stream bodies intact both ways.
 */
class IoStrategyTest {
    private static final long MIB = 1024 * 1024;
    private static final int CLIENTS = 8;

    @ParameterizedTest
    @ValueSource(strings = {"same-thread", "worker-thread", "dynamic", "leader-follower"})
    void concurrentUploadsAndDownloadsArriveIntact(String strategy) throws Exception {
        try (TestUpstream upstream = TestUpstream.start();
             ProxyHarness proxy = ProxyHarness.forUpstream(upstream.url("/"),
                     "proxy.listener.io-strategy = " + strategy + "\nproxy.listener.selector-threads = 2")) {
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
