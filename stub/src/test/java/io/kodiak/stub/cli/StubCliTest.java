package io.kodiak.stub.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** bin/stub.sh's argument handling and its commands that need no running stub, in this JVM. */
class StubCliTest {
    @TempDir
    Path base;

    private record Ran(int code, String out, String err) {
    }

    private Ran run(Map<String, String> extra, String... args) throws Exception {
        Map<String, String> env = new HashMap<>(Map.of("STUB_BASE", base.toString()));
        env.putAll(extra);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = StubCli.run(args, env, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Ran(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void anUnknownCommandOrExtraArgumentPrintsTheUsageAndExits2() throws Exception {
        for (String[] args : new String[][] {{}, {"strat"}, {"start", "now"}, {""}}) {
            Ran ran = run(Map.of(), args);
            assertEquals(2, ran.code(), String.join(" ", args));
            assertTrue(ran.err().startsWith("usage: stub.sh start|stop|status|run"), ran.err());
        }
        assertEquals(0, run(Map.of(), "--help").code());
    }

    @Test
    void badSettingsAreRefusedNamingTheVariableBeforeAnythingStarts() throws Exception {
        Ran port = run(Map.of("STUB_PORT", "80a"), "start");
        assertEquals(2, port.code());
        assertEquals("stub: STUB_PORT='80a' is not valid: expected an integer from 1 to 65535\n", port.err());
        Ran mode = run(Map.of("STUB_MODE", "fast"), "run");
        assertEquals(2, mode.code());
        assertTrue(mode.err().contains("STUB_MODE='fast' is not valid: expected one of async, blocking"), mode.err());
        assertEquals("", mode.out(), "run prints no command line for a bad setting");
        assertTrue(!Files.exists(base.resolve("stub.pid")));
    }

    @Test
    void withNoStubStatusExits3AndStopSaysSo() throws Exception {
        Ran status = run(Map.of(), "status");
        assertEquals(3, status.code());
        assertEquals("stub is not running (base " + base + ")\n", status.out());
        Ran stop = run(Map.of(), "stop");
        assertEquals(0, stop.code());
        assertEquals("stub is not running\n", stop.out());
    }

    @Test
    void aPidFileNamingAnotherProcessIsNotTrusted() throws Exception {
        Files.writeString(base.resolve("stub.pid"), ProcessHandle.current().pid() + "\n");
        assertEquals(3, run(Map.of(), "status").code(), "this test JVM is not the stub of this base");
        assertEquals(0, run(Map.of(), "stop").code());
        assertTrue(ProcessHandle.current().isAlive());
    }
}
