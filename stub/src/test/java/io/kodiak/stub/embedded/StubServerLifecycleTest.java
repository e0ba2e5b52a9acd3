package io.kodiak.stub.embedded;

import static io.kodiak.stub.embedded.StubAnswers.assertAnswers;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kodiak.stub.DelayMode;
import io.kodiak.stub.StubSettings;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class StubServerLifecycleTest {
    @Test
    void aPortInUseIsReportedNotIgnored() throws Exception {
        try (StubServer first = StubServer.start(StubServerConfig.ephemeral(0, DelayMode.ASYNC, 2))) {
            StubServerConfig samePort = new StubServerConfig("127.0.0.1", first.port(), 2,
                    new StubSettings(0, DelayMode.ASYNC));
            IOException error = assertThrows(IOException.class, () -> StubServer.start(samePort).close());
            assertTrue(error.getMessage().contains("127.0.0.1:" + first.port()), error.getMessage());
        }
    }

    @ParameterizedTest
    @EnumSource(DelayMode.class)
    void stopLetsWaitingExchangesFinish(DelayMode mode) throws Exception {
        StubServer server = StubServer.start(StubServerConfig.ephemeral(300, mode, 2));
        try (RawHttpConnection connection = new RawHttpConnection(server.port())) {
            connection.send(RawHttpConnection.requestHead("POST", 7) + "waiting");
            assertTrue(server.inFlight().await(n -> n == 1, Duration.ofSeconds(10)), "the request never arrived");

            int abandoned = server.stop(Duration.ofSeconds(10));

            assertEquals(0, abandoned);
            RawHttpConnection.Response response = connection.read();
            assertEquals(200, response.status());
            assertAnswers("waiting", response.body());
        }
    }
}
