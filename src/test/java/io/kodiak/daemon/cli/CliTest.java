package io.kodiak.daemon.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The command line's argument handling and the commands that need no daemon, in this JVM. */
class CliTest {
    @TempDir
    Path dir;

    private record Ran(int code, String out, String err) {
    }

    private Ran run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Cli.run(args, Map.of("PROXY_BASE", dir.resolve("base").toString()),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Ran(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static void assertUsage(Ran ran, int code) {
        assertEquals(code, ran.code(), ran.err());
        assertTrue(ran.err().startsWith("usage: proxy.sh start|stop|restart|reload|status|check|run|version [-c FILE]"), ran.err());
        assertEquals("", ran.out());
    }

    @Test
    void anUnknownCommandOrArgumentPrintsTheUsageAndExits2() {
        assertUsage(run(), 2);
        assertUsage(run("strat"), 2);
        assertUsage(run("start", "-c"), 2);
        assertUsage(run("start", "proxy.conf"), 2);
        assertUsage(run("status", "-c", "a.conf", "extra"), 2);
        assertUsage(run("--verbose"), 2);
        assertFalse(Files.exists(dir.resolve("base")), "bad usage writes nothing");
    }

    @Test
    void helpPrintsTheUsageAndExits0() {
        assertUsage(run("help"), 0);
        assertUsage(run("--help"), 0);
        assertUsage(run("-h"), 0);
    }

    @Test
    void versionNamesKodiaksVersion() {
        Ran ran = run("version");
        assertEquals(0, ran.code());
        // From target/classes there is no Maven descriptor; the packaged jar knows (DistributionIT).
        assertEquals("Kodiak unknown\n", ran.out());
        assertEquals(ran, run("--version"));
    }

    @Test
    void checkNamesEveryProblemAndExits2OrSaysOk() throws Exception {
        Path bad = Files.writeString(dir.resolve("bad.conf"), "proxy.listener.port = \"abc\"\nproxy.upstream.max-connections = 0\n");
        Ran refused = run("check", "-c", bad.toString());
        assertEquals(2, refused.code(), refused.err());
        assertTrue(refused.err().contains("proxy.listener.port = \"abc\": expected a port number"), refused.err());
        assertTrue(refused.err().contains("proxy.upstream.max-connections = 0: expected"), refused.err());

        Ran missing = run("check", "-c", dir.resolve("none.conf").toString());
        assertEquals(2, missing.code());
        assertTrue(missing.err().contains("none.conf does not exist or is not readable"), missing.err());

        Path anyPort = Files.writeString(dir.resolve("any.conf"), "proxy.listener.port = 0\n");
        Ran forTests = run("check", "-c", anyPort.toString());
        assertEquals(2, forTests.code());
        assertTrue(forTests.err().contains("proxy.listener.port = 0 (any free port) is for tests"), forTests.err());

        Path good = Files.writeString(dir.resolve("good.conf"), "proxy.listener.port = 19590\nproxy.admin.port = 19591\n");
        Ran ok = run("check", "-c", good.toString());
        assertEquals(0, ok.code(), ok.err());
        assertEquals("configuration OK: " + good + " (1 routes; listening on http://127.0.0.1:19590)\n", ok.out());
    }

    @Test
    void withNoDaemonStatusAndReloadExit3AndStopSaysSo() {
        Ran status = run("status");
        assertEquals(3, status.code());
        assertEquals("Kodiak is not running (base " + dir.resolve("base") + ")\n", status.out());

        Ran reload = run("reload");
        assertEquals(3, reload.code());
        assertTrue(reload.err().contains("Kodiak is not running"), reload.err());

        Ran stop = run("stop");
        assertEquals(0, stop.code());
        assertEquals("Kodiak is not running\n", stop.out());
    }

    @Test
    void durationsReadAsStatusPrintsThem() {
        assertEquals("0m 05s", StatusCommand.duration(5));
        assertEquals("2h 03m 04s", StatusCommand.duration(2 * 3600 + 3 * 60 + 4));
        assertEquals("1d 01h 01m", StatusCommand.duration(86_400 + 3_600 + 60));
    }
}
