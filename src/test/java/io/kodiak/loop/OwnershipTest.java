package io.kodiak.loop;

import io.kodiak.support.ProxyHarness;
import io.kodiak.support.TestUpstream;
import io.kodiak.upstream.UpstreamPool;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One owner per exchange: with two loops, under every I/O strategy, concurrent clients on both
 * loops share a server whose max-connections (2) is less than the clients, so connections close
 * on one loop for the other's waiters. Every entry point of an exchange asserts that it runs on
 * the exchange's loop, and that the upstream connection it is handed is registered on that
 * loop's selector ({@link EventLoops#checkOwner}); none of those checks may fail, and the budget
 * is never exceeded.
 */
class OwnershipTest {
    private static final int CLIENTS = 12;
    private static final int ROUNDS = 20;

    @ParameterizedTest
    @ValueSource(strings = {"same-thread", "worker-thread", "dynamic", "leader-follower"})
    void exchangesAndTheirUpstreamConnectionsStayOnOneLoop(String strategy) throws Exception {
        long straysBefore = EventLoops.strays();
        try (TestUpstream upstream = TestUpstream.start();
             ProxyHarness proxy = ProxyHarness.forUpstream(upstream.url("/"),
                     "proxy.listener.io-strategy = " + strategy + "\nproxy.listener.selector-threads = 2"
                             + "\nproxy.upstream.max-connections = 2\nproxy.upstream.connect-timeout = 20s")) {
            assertEquals(2, proxy.kodiak().loops().count());
            UpstreamPool pool = proxy.kodiak().upstreams().pools().get(0);
            ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
            int[] most = new int[1];
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int i = 0; i < CLIENTS; i++) {
                    int client = i;
                    done.add(clients.submit(() -> {
                        // A client of its own: its own connection, accepted on either loop.
                        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                        for (int round = 0; round < ROUNDS; round++) {
                            String body = "client " + client + " round " + round;
                            HttpResponse<String> echoed = http.send(HttpRequest.newBuilder(proxy.uri("/echo"))
                                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                                    HttpResponse.BodyHandlers.ofString());
                            assertEquals(200, echoed.statusCode());
                            assertEquals(body, echoed.body());
                            synchronized (most) {
                                most[0] = Math.max(most[0], pool.openConnections());
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> f : done) {
                    f.get();
                }
            } finally {
                clients.shutdownNow();
            }
            assertTrue(most[0] <= 2 && pool.mostOpenAtOnce() <= 2,
                    "upstream connections open at once: " + most[0] + ", " + pool.mostOpenAtOnce());
        }
        assertEquals(straysBefore, EventLoops.strays(), "ownership checks that failed");
    }
}
