package io.kodiak.stub.embedded;

import static io.kodiak.stub.embedded.StubAnswers.assertAnswers;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.kodiak.stub.DelayMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Keep-alive has no request cap: Tomcat's default would close every connection after 100 requests. */
class ConnectionReuseTest {
    @ParameterizedTest
    @EnumSource(DelayMode.class)
    void oneConnectionServesManyMoreThanAHundredRequests(DelayMode mode) throws Exception {
        try (StubServer server = StubServer.start(StubServerConfig.ephemeral(0, mode, 4));
             RawHttpConnection connection = new RawHttpConnection(server.port())) {
            for (int i = 0; i < 250; i++) {
                String body = "request " + i;
                connection.send(RawHttpConnection.requestHead("POST", body.length()) + body);
                RawHttpConnection.Response response = connection.read();
                assertEquals(200, response.status());
                assertAnswers(body, response.body());
                assertFalse("close".equalsIgnoreCase(response.headers().get("connection")),
                        "the stub closed the connection after request " + i);
            }
        }
    }
}
