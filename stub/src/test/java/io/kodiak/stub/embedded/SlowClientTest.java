package io.kodiak.stub.embedded;

import static io.kodiak.stub.embedded.StubAnswers.assertAnswers;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kodiak.stub.DelayMode;
import java.util.ArrayList;
import java.util.List;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** In async mode a client that sends its body slowly holds no thread either. */
class SlowClientTest {
    @Test
    void halfSentBodiesDoNotStarveOtherRequests() throws Exception {
        int stalled = 20;
        int threads = 2;
        try (StubServer server = StubServer.start(StubServerConfig.ephemeral(100, DelayMode.ASYNC, threads))) {
            List<RawHttpConnection> slow = new ArrayList<>();
            try {
                for (int i = 0; i < stalled; i++) {
                    RawHttpConnection connection = new RawHttpConnection(server.port());
                    slow.add(connection);
                    connection.send(RawHttpConnection.requestHead("POST", 10) + "first");
                }
                assertTrue(server.inFlight().await(n -> n == stalled, Duration.ofSeconds(10)),
                        "the stalled requests never reached the servlet");

                // Ten times more stalled bodies than threads: a blocking read would leave no thread for this one.
                try (RawHttpConnection fresh = new RawHttpConnection(server.port())) {
                    long start = System.nanoTime();
                    fresh.send(RawHttpConnection.requestHead("POST", 5) + "fresh");
                    RawHttpConnection.Response response = fresh.read();
                    long elapsedMs = (System.nanoTime() - start) / 1_000_000;
                    assertEquals(200, response.status());
                    assertAnswers("fresh", response.body());
                    assertTrue(elapsedMs < 5_000, "a fresh request waited " + elapsedMs + " ms behind slow bodies");
                }

                for (RawHttpConnection connection : slow) {
                    connection.send("-rest");
                }
                for (RawHttpConnection connection : slow) {
                    RawHttpConnection.Response response = connection.read();
                    assertEquals(200, response.status());
                    assertAnswers("first-rest", response.body());
                }
            } finally {
                for (RawHttpConnection connection : slow) {
                    connection.close();
                }
            }
        }
    }
}
