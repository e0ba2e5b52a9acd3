package io.kodiak.stub.embedded;

import static io.kodiak.stub.embedded.StubAnswers.assertAnswers;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** bin/stub.sh against the packaged jar (runs in verify, after package). */
class StubScriptIT {
    private static final Path SCRIPT = Path.of("..", "bin", "stub.sh").toAbsolutePath().normalize();

    @TempDir
    Path base;
    private int port;

    @BeforeEach
    void pickPort() throws IOException {
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
    }

    @AfterEach
    void stopWhateverIsLeft() throws Exception {
        run("stop");
    }

    private Result run(String command, String... env) throws Exception {
        ProcessBuilder builder = new ProcessBuilder("bash", SCRIPT.toString(), command).redirectErrorStream(true);
        Map<String, String> environment = builder.environment();
        environment.keySet().removeIf(name -> name.startsWith("STUB_"));
        environment.putAll(Map.of("STUB_BASE", base.toString(), "STUB_PORT", Integer.toString(port),
                "STUB_DELAY_MS", "100"));
        Map<String, String> extra = new HashMap<>();
        for (int i = 0; i < env.length; i += 2) {
            extra.put(env[i], env[i + 1]);
        }
        environment.putAll(extra);
        Process process = builder.start();
        process.getOutputStream().close();
        assertTrue(process.waitFor(90, TimeUnit.SECONDS), "bin/stub.sh " + command + " did not finish");
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Result(process.exitValue(), output);
    }

    @Test
    void startStatusStopLifecycle() throws Exception {
        Result start = run("start", "STUB_MODE", "blocking");
        assertEquals(0, start.exit(), start.output());
        assertTrue(start.output().contains(":" + port + "/ProxiedServiceStub/ServiceStubServlet"),
                start.output());
        assertTrue(start.output().contains("mode blocking, delay 100 ms"), start.output());
        assertTrue(Files.isRegularFile(base.resolve("stub.pid")));
        assertTrue(Files.isRegularFile(base.resolve("logs/stub.log")));

        HttpResponse<String> answer = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + StubServer.PATH))
                        .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.ofString("test1")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, answer.statusCode());
        assertAnswers("test1", answer.body());

        Result second = run("start");
        assertEquals(1, second.exit(), second.output());
        assertTrue(second.output().contains("already running"), second.output());

        Result running = run("status");
        assertEquals(0, running.exit(), running.output());
        assertTrue(running.output().contains("stub is running"), running.output());

        Result stop = run("stop");
        assertEquals(0, stop.exit(), stop.output());
        assertTrue(stop.output().contains("stub stopped"), stop.output());

        Result stopped = run("status");
        assertEquals(3, stopped.exit(), stopped.output());

        Result stopAgain = run("stop");
        assertEquals(0, stopAgain.exit(), stopAgain.output());
        assertTrue(stopAgain.output().contains("not running"), stopAgain.output());
    }

    @Test
    void badSettingsAreRefusedWithTheVariableNamed() throws Exception {
        Result badPort = run("start", "STUB_PORT", "80a");
        assertEquals(2, badPort.exit());
        assertTrue(badPort.output().contains("STUB_PORT='80a' is not valid: expected an integer from 1 to 65535"),
                badPort.output());

        Result badDelay = run("start", "STUB_DELAY_MS", "-3");
        assertEquals(2, badDelay.exit());
        assertTrue(badDelay.output().contains("STUB_DELAY_MS='-3' is not valid"), badDelay.output());

        Result badMode = run("start", "STUB_MODE", "fast");
        assertEquals(2, badMode.exit());
        assertTrue(badMode.output().contains("STUB_MODE='fast' is not valid: expected one of async, blocking"),
                badMode.output());

        assertEquals(3, run("status").exit(), "a refused start must leave nothing running");
    }

    @Test
    void anUnknownCommandPrintsTheUsageAndExits2() throws Exception {
        Result unknown = run("restart");
        assertEquals(2, unknown.exit(), unknown.output());
        assertTrue(unknown.output().startsWith("usage: stub.sh start|stop|status|run"), unknown.output());
    }

    private record Result(int exit, String output) {
    }
}
