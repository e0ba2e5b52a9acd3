package io.kodiak.daemon;

import io.kodiak.support.RawHttp;
import io.kodiak.support.TestUpstream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.kodiak.daemon.ProxyScript.accepts;
import static io.kodiak.daemon.ProxyScript.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The contract of bin/proxy.sh (brief §5), against the packaged build, one temporary PROXY_BASE per test. */
class ProxyScriptIT {
    private static final HttpClient HTTP = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    @TempDir
    Path dir;
    private TestUpstream upstream;
    private ProxyScript proxy;

    @BeforeEach
    void startUpstream() throws IOException {
        upstream = TestUpstream.start();
        proxy = new ProxyScript(dir, upstream.url(""), "");
    }

    @AfterEach
    void stopEverything() throws Exception {
        try {
            proxy.cleanUp();
        } finally {
            upstream.close();
        }
    }

    private static HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void assertContains(String output, String expected) {
        assertTrue(output.contains(expected), "expected \"" + expected + "\" in:\n" + output);
    }

    @Test
    void startStatusStopThroughASymlinkFromAnotherDirectory() throws Exception {
        Path link = dir.resolve("kodiak-ctl");
        Files.createSymbolicLink(link, ProxyScript.SCRIPT);
        proxy.through(link, dir);

        ProxyScript.Result started = proxy.run("start");
        assertEquals(0, started.exitCode(), started.output());
        long pid = proxy.pid().orElseThrow();
        assertContains(started.output(), "Kodiak started: pid " + pid + ", listening on http://127.0.0.1:" + proxy.port);
        assertContains(started.output(), "route     / -> " + upstream.url(""));
        assertTrue(accepts(proxy.port), "start returns once the listener accepts");

        HttpResponse<String> proxied = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + proxy.port + "/echo"))
                .POST(HttpRequest.BodyPublishers.ofString("test1")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals("test1", proxied.body());

        HttpResponse<String> health = get(proxy.adminPort, "/health");
        assertEquals(200, health.statusCode());
        assertContains(health.body(), "\"status\":\"UP\"");
        assertFalse(health.body().contains("\"version\":\"unknown\""), "the packaged jar knows its version: " + health.body());

        ProxyScript.Result second = proxy.run("start");
        assertEquals(1, second.exitCode(), second.output());
        assertContains(second.output(), "already running (pid " + pid);

        ProxyScript.Result status = proxy.run("status");
        assertEquals(0, status.exitCode(), status.output());
        assertContains(status.output(), "Kodiak is running: pid " + pid);
        assertContains(status.output(), "listener  http://127.0.0.1:" + proxy.port);
        assertContains(status.output(), "route     / -> " + upstream.url(""));
        assertContains(status.output(), "tracing   off");
        assertContains(status.output(), "health    UP");
        assertTrue(status.output().matches("(?s).*\n  clients   [01] connections open of max [1-9][0-9]* .*"), status.output());
        assertContains(status.output(), "in flight 0 exchanges (1 requests since start)");
        assertContains(status.output(), "upstream  127.0.0.1:" + upstream.port() + ": UP, 0 in flight, 0 failures; 1 open (0 leased, 1 idle) of max 1000, 0 waiting");

        Path logs = proxy.base.resolve("logs");
        assertContains(Files.readString(logs.resolve("kodiak.log")), "Kodiak listening on 127.0.0.1:" + proxy.port);
        await(() -> read(logs.resolve("access.log")).contains("\"POST /echo\" 200 5 5"), 10, "the access log line");

        ProxyScript.Result stopped = proxy.run("stop");
        assertEquals(0, stopped.exitCode(), stopped.output());
        assertContains(stopped.output(), "Kodiak stopped");
        assertFalse(Files.exists(proxy.pidFile()), "stop removes the pid file");
        assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "the JVM has exited");
        assertFalse(accepts(proxy.port));

        ProxyScript.Result statusStopped = proxy.run("status");
        assertEquals(3, statusStopped.exitCode(), statusStopped.output());
        assertContains(statusStopped.output(), "not running");

        ProxyScript.Result stopAgain = proxy.run("stop");
        assertEquals(0, stopAgain.exitCode(), stopAgain.output());
        assertContains(stopAgain.output(), "Kodiak is not running");
    }

    /** Longer than the script's own 60 s wait for an answer, so that a reload left unanswered fails with the script's message and the log. */
    @Test
    @org.junit.jupiter.api.Timeout(150)
    void reloadAppliesAChangeRefusesABadFileAndAnswersSighup() throws Exception {
        assertEquals(0, proxy.run("start").exitCode());
        long pid = proxy.pid().orElseThrow();
        String conf = Files.readString(proxy.conf);
        // The token lets reload -c name another file (the script reads it from the recorded settings).
        Path token = Files.writeString(proxy.base.resolveSibling("admin.token"), "reload-token-1\n");
        Files.writeString(proxy.conf, conf.replace("routes = [ {", "routes = [ { prefix = \"/b/\", upstream = \""
                + upstream.url("/status/") + "\" }, {") + "\nproxy.admin.token-file = \"" + token + "\"\n");

        ProxyScript.Result reloaded = proxy.run("reload");
        assertEquals(0, reloaded.exitCode(), () -> reloaded.output() + "\n--- kodiak.log ---\n" + logTail());
        assertContains(reloaded.output(), "Kodiak reloaded: configuration generation 2 from " + proxy.conf);
        assertContains(reloaded.output(), "route added: /b/ -> " + upstream.url("/status/"));
        assertEquals(204, get(proxy.port, "/b/204").statusCode(), "the new route serves");
        assertContains(get(proxy.adminPort, "/health").body(), "\"generation\":2,");
        ProxyScript.Result status = proxy.run("status");
        assertContains(status.output(), "config    generation 2, loaded ");
        assertContains(status.output(), "route     /b/ -> " + upstream.url("/status/"));

        Path bad = proxy.base.resolveSibling("bad.conf");
        Files.writeString(bad, conf.replace("shutdown.grace-period = 20s", "shutdown.grace-period = soon\n  listener.bogus = 1"));
        ProxyScript.Result refused = proxy.run("reload", bad);
        assertEquals(2, refused.exitCode(), refused.output());
        assertContains(refused.output(), "reload refused, " + bad + ": the running configuration (generation 2) stays");
        assertContains(refused.output(), "proxy.shutdown.grace-period");
        assertContains(refused.output(), "proxy.listener.bogus");
        assertEquals(204, get(proxy.port, "/b/204").statusCode(), "the running configuration still serves");
        assertContains(Files.readString(proxy.base.resolve("logs/kodiak.log")), "reload refused");

        // A plain SIGHUP (kill -HUP, systemd's ExecReload) re-reads the file in service.
        Files.writeString(proxy.conf, conf);
        new ProcessBuilder("kill", "-HUP", Long.toString(pid)).start().waitFor();
        await(() -> {
            try {
                return get(proxy.adminPort, "/health").body().contains("\"generation\":3,");
            } catch (Exception e) {
                return false;
            }
        }, 30, "generation 3 after SIGHUP");
        assertEquals(404, get(proxy.port, "/b/204").statusCode(), "the route is gone with its file line");
        assertEquals(pid, proxy.pid().orElseThrow(), "the same process throughout");

        assertEquals(0, proxy.run("stop").exitCode());
        ProxyScript.Result notRunning = proxy.run("reload");
        assertEquals(3, notRunning.exitCode(), notRunning.output());
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            return "";
        }
    }

    @Test
    @org.junit.jupiter.api.Timeout(150)
    void statusShowsEachResolvedNameItsAddressesAndWhenItResolved() throws Exception {
        try (io.kodiak.support.DnsResponder dns = new io.kodiak.support.DnsResponder()) {
            dns.addresses("orders.test", 60, "127.0.0.1");
            proxy.cleanUp();
            proxy = new ProxyScript(dir, "http://orders/", "proxy.resolver { servers = [\"" + dns.address() + "\"], timeout = 500ms }\n"
                    + "proxy.upstreams.orders.servers = [ { url = \"http://orders.test:" + upstream.port() + "\", resolve = true } ]\n"
                    + "proxy.upstreams.billing.servers = [ { url = \"http://billing.test:" + upstream.port() + "\", resolve = true } ]\n"
                    + "proxy.routes = [ { prefix = \"/\", upstream = \"http://orders/\" }, { prefix = \"/b/\", upstream = \"http://billing/\" } ]\n");
            ProxyScript.Result started = proxy.run("start");
            assertEquals(0, started.exitCode(), () -> started.output() + "\n--- kodiak.log ---\n" + logTail());
            assertEquals(204, get(proxy.port, "/status/204").statusCode(), "orders.test resolved: its group serves");
            assertEquals(503, get(proxy.port, "/b/x").statusCode(), "billing.test does not exist: only its group is unavailable");

            ProxyScript.Result status = proxy.run("status");
            assertEquals(0, status.exitCode(), status.output());
            assertTrue(status.output().matches("(?s).*\n  resolved  orders\\.test \\(A/AAAA\\): 127\\.0\\.0\\.1, last resolved 20[0-9-]+T[0-9:.]+Z\n.*"),
                    status.output());
            assertContains(status.output(), "resolved  billing.test (A/AAAA): no address, last resolved never; failing: NXDOMAIN");
            assertContains(status.output(), "upstream  orders 127.0.0.1:" + upstream.port() + ": UP");
        }
    }

    @Test
    void stalePidFileDoesNotBlockStartJavaOptsOverrideKeysAndRestartReplacesTheJvm() throws Exception {
        Files.createDirectories(proxy.base);
        // A live process that is not Kodiak: this test JVM. The script must neither trust nor signal it.
        Files.writeString(proxy.pidFile(), ProcessHandle.current().pid() + "\n");
        ProxyScript.Result status = proxy.run("status");
        assertEquals(3, status.exitCode(), status.output());
        assertContains(status.output(), "stale pid file");

        int overridden = ProxyScript.freePort();
        Path elsewhere = Files.createDirectory(dir.resolve("elsewhere"));
        proxy.through(ProxyScript.SCRIPT, elsewhere).javaOpts("-Xmx256m -Dproxy.listener.port=" + overridden
                + " -Dlogback.configurationFile=" + ProxyScript.REPO.resolve("conf/logback.xml"));
        ProxyScript.Result started = proxy.run("start");
        assertEquals(0, started.exitCode(), started.output());
        assertContains(started.output(), "listening on http://127.0.0.1:" + overridden);
        try (var written = Files.list(elsewhere)) {
            assertEquals(List.of(), written.toList(), "nothing lands in the caller's directory, whatever JAVA_OPTS say");
        }
        assertTrue(Files.exists(proxy.base.resolve("logs/kodiak.log")), "JAVA_OPTS may name the logging config");
        assertEquals(200, get(overridden, "/status/200").statusCode());
        assertFalse(accepts(proxy.port), "the -D override replaced the file's port");

        assertEquals(0, proxy.run("stop").exitCode());
        Files.writeString(proxy.pidFile(), "4194303\n");
        ProxyScript.Result startAfterDeadPid = proxy.run("start");
        assertEquals(0, startAfterDeadPid.exitCode(), "a pid file naming no process: " + startAfterDeadPid.output());

        long before = proxy.pid().orElseThrow();
        ProxyScript.Result restarted = proxy.run("restart");
        assertEquals(0, restarted.exitCode(), restarted.output());
        assertContains(restarted.output(), "Kodiak stopped");
        assertContains(restarted.output(), "Kodiak started: pid " + proxy.pid().orElseThrow());
        assertTrue(proxy.pid().orElseThrow() != before, "restart runs a new JVM");
    }

    /**
     * The daemon runs in PROXY_BASE, where relative paths in the file resolve; the script's check of
     * the file before it starts the daemon resolves them there too, whatever the caller's directory.
     */
    @Test
    void relativePathsResolveInProxyBaseForTheCheckAsForTheDaemon() throws Exception {
        proxy = new ProxyScript(dir, upstream.url(""),
                "proxy.listener.tls { certificate = \"tls/site.pem\", key = \"tls/site.key\" }\n");
        Files.createDirectories(proxy.base.resolve("tls"));
        new io.kodiak.tls.TestCertificates(proxy.base.resolve("tls")).leaf("site", Duration.ofDays(30), "localhost");
        proxy.through(ProxyScript.SCRIPT, dir);

        ProxyScript.Result started = proxy.run("start");
        assertEquals(0, started.exitCode(), started.output());
        assertContains(started.output(), "listening on https://127.0.0.1:" + proxy.port);
    }

    @Test
    void invalidConfigurationExitsWithEveryProblemNamed() throws Exception {
        Path bad = dir.resolve("bad.conf");
        Files.writeString(bad, "proxy.listener.port = \"abc\"\nproxy.upstream.max-connections = 0\n");

        ProxyScript.Result result = proxy.run("start", bad);

        assertEquals(2, result.exitCode(), result.output());
        assertContains(result.output(), "proxy.listener.port = \"abc\": expected a port number");
        assertContains(result.output(), "proxy.upstream.max-connections = 0: expected");
        assertFalse(Files.exists(proxy.pidFile()));

        ProxyScript.Result missing = proxy.run("start", dir.resolve("no-such.conf"));
        assertEquals(2, missing.exitCode(), missing.output());
        assertContains(missing.output(), "no-such.conf does not exist");

        // check: the same verdict without starting anything, and a valid file passes.
        ProxyScript.Result checked = proxy.run("check", bad);
        assertEquals(2, checked.exitCode(), checked.output());
        assertContains(checked.output(), "proxy.listener.port = \"abc\": expected a port number");
        assertFalse(Files.exists(proxy.pidFile()));
        ProxyScript.Result valid = proxy.run("check");
        assertEquals(0, valid.exitCode(), valid.output());
        assertContains(valid.output(), "configuration OK: ");
        assertFalse(Files.exists(proxy.pidFile()));
    }

    @Test
    void anUnknownCommandOrArgumentPrintsTheUsageAndExits2() throws Exception {
        for (String command : List.of("bogus", "")) {
            ProxyScript.Result result = proxy.run(command, null);
            assertEquals(2, result.exitCode(), result.output());
            assertContains(result.output(), "usage: proxy.sh start|stop|restart|reload|status|check|run|version [-c FILE]");
        }
        ProxyScript.Result help = proxy.run("help", null);
        assertEquals(0, help.exitCode(), help.output());
        assertContains(help.output(), "usage: ");
        assertFalse(Files.exists(proxy.base), "bad usage writes nothing");
    }

    /**
     * reload goes to the admin listener at the address the daemon recorded, and presents the token
     * of proxy.admin.token-file: on an address that is not loopback, the listener takes no reload without it.
     */
    @Test
    void reloadPresentsTheTokenToAnAdminListenerOffLoopback() throws Exception {
        java.util.Optional<String> address = io.kodiak.support.LocalAddresses.nonLoopback();
        org.junit.jupiter.api.Assumptions.assumeTrue(address.isPresent(), "this host has no non-loopback address");
        Path token = Files.writeString(dir.resolve("admin.token"), "cli-token-5e1\n");
        proxy = new ProxyScript(dir, upstream.url(""), "proxy.admin.token-file = \"" + token + "\"\n");
        Files.writeString(proxy.conf, Files.readString(proxy.conf).replace("admin { enabled = true, host = \"127.0.0.1\"",
                "admin { enabled = true, host = \"" + address.get() + "\""));
        assertEquals(0, proxy.run("start").exitCode());

        ProxyScript.Result reloaded = proxy.run("reload", null);
        assertEquals(0, reloaded.exitCode(), reloaded.output());
        assertContains(reloaded.output(), "Kodiak reloaded: configuration generation 2 from " + proxy.conf);

        // The file changed under the daemon: the token in service is the one of the last reload.
        Files.writeString(token, "another-token\n");
        ProxyScript.Result refused = proxy.run("reload", null);
        assertEquals(1, refused.exitCode(), refused.output());
        assertContains(refused.output(), "refused the reload: not from a loopback address, and the bearer token is not the one");
        assertContains(Files.readString(proxy.base.resolve("logs/kodiak.log")), "POST /reload refused from " + address.get());
    }

    /** With no admin listener to answer, reload falls back to SIGHUP (systemd's ExecReload keeps working). */
    @Test
    void withTheAdminListenerOffReloadSignalsAndTheLogTellsTheOutcome() throws Exception {
        Files.writeString(proxy.conf, Files.readString(proxy.conf).replace("admin { enabled = true", "admin { enabled = false"));
        assertEquals(0, proxy.run("start").exitCode());

        ProxyScript.Result reloaded = proxy.run("reload", null);
        assertEquals(0, reloaded.exitCode(), reloaded.output());
        assertContains(reloaded.output(), "asked to re-read " + proxy.conf + " (SIGHUP)");
        Path log = proxy.base.resolve("logs/kodiak.log");
        await(() -> read(log).contains("configuration generation 2 in service"), 30, "the signalled reload in the log");

        ProxyScript.Result other = proxy.run("reload");
        assertEquals(1, other.exitCode(), other.output());
        assertContains(other.output(), "reload -c FILE needs the admin listener");
    }

    @Test
    void portsInUseFailStartWithTheReason() throws Exception {
        try (ServerSocket taken = new ServerSocket(proxy.port, 50, InetAddress.getLoopbackAddress())) {
            ProxyScript.Result result = proxy.run("start");
            assertEquals(1, result.exitCode(), result.output());
            assertContains(result.output(), "127.0.0.1:" + proxy.port + " is already in use");
        }
        try (ServerSocket taken = new ServerSocket(proxy.adminPort, 50, InetAddress.getLoopbackAddress())) {
            ProxyScript.Result result = proxy.run("start");
            assertEquals(1, result.exitCode(), result.output());
            assertContains(result.output(), "admin address 127.0.0.1:" + proxy.adminPort + " (proxy.admin) is already in use");
        }
        assertFalse(Files.exists(proxy.pidFile()));
    }

    @Test
    void jvmThatDiesDuringStartFailsWithItsLastLogLines() throws Exception {
        proxy.javaOpts("-Xmx5q");

        ProxyScript.Result result = proxy.run("start");

        assertEquals(1, result.exitCode(), result.output());
        assertContains(result.output(), "exited during start-up");
        assertContains(result.output(), "Invalid maximum heap size: -Xmx5q");
        assertFalse(Files.exists(proxy.pidFile()));
    }

    @Test
    void stopDrainsTheExchangeInFlightAndRefusesNewConnections() throws Exception {
        assertEquals(0, proxy.run("start").exitCode());
        long pid = proxy.pid().orElseThrow();
        try (RawHttp inFlight = new RawHttp(proxy.port)) {
            inFlight.send("GET /hold HTTP/1.1\r\nHost: a\r\n\r\n");
            await(() -> upstream.holds() == 1, 10, "the slow request to reach the upstream");

            Process stopping = proxy.spawn("stop", dir.resolve("stop.out"));
            await(() -> !accepts(proxy.port), 10, "the listener to refuse new connections");
            HttpResponse<String> health = get(proxy.adminPort, "/health");
            assertEquals(503, health.statusCode(), "draining is unhealthy: " + health.body());
            assertContains(health.body(), "\"status\":\"DRAINING\"");
            assertTrue(stopping.isAlive(), "stop waits for the exchange in flight");
            assertTrue(ProcessHandle.of(pid).isPresent());

            upstream.release();
            RawHttp.Response response = inFlight.read();
            assertEquals(200, response.status());
            assertEquals("held ok", response.bodyText());

            assertTrue(stopping.waitFor(30, TimeUnit.SECONDS), "stop returns once the drain is over");
            assertEquals(0, stopping.exitValue());
            assertContains(Files.readString(dir.resolve("stop.out")), "Kodiak stopped");
            assertFalse(Files.exists(proxy.pidFile()));
            // The access log is buffered (conf/logback.xml): its last lines are written at stop, not lost.
            assertContains(Files.readString(proxy.base.resolve("logs/access.log")), "\"GET /hold\" 200");
        }
    }

    /**
     * The open-file limit lowered on the running daemon (prlimit), then clients beyond it: the
     * failed accepts pause accepting instead of spinning on the pending connection, and once
     * descriptors are free again the waiting clients are served.
     */
    @Test
    @org.junit.jupiter.api.Timeout(120)
    void openFileLimitReachedPausesAcceptingAndTheWaitingClientsAreServedAfter() throws Exception {
        assertEquals(0, proxy.run("start").exitCode());
        long pid = proxy.pid().orElseThrow();
        Path fds = Path.of("/proc/" + pid + "/fd");
        long hard = openFileLimit(pid, 4);
        int limit = (int) openFiles(fds) + 20;
        prlimit(pid, limit, hard);
        List<java.net.Socket> clients = new java.util.ArrayList<>();
        try {
            long heldFrom = System.nanoTime();
            for (int i = 0; i < 60; i++) {
                java.net.Socket client = new java.net.Socket();
                client.connect(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), proxy.port), 5_000);
                clients.add(client);
            }
            // The daemon took connections until its descriptors ran out; the rest wait in the listen queue.
            await(() -> openFiles(fds) >= limit, 30, "the daemon to reach its open-file limit of " + limit);
            long cpuAtLimit = cpuTicks(pid);
            // A measurement window, not a synchronisation: a spinning selector burns it whole.
            Thread.sleep(1_000);
            long cpuHeld = cpuTicks(pid) - cpuAtLimit;
            long heldMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - heldFrom);
            assertTrue(cpuHeld < 25, "CPU ticks (1/100 s) spent in 1 s at the open-file limit: " + cpuHeld);

            prlimit(pid, (int) hard, hard);
            // A client that waited in the listen queue is served once descriptors are free.
            java.net.Socket last = clients.get(clients.size() - 1);
            last.getOutputStream().write("GET /status/200 HTTP/1.1\r\nHost: a\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            last.setSoTimeout(30_000);
            String answer = new String(last.getInputStream().readNBytes(12), java.nio.charset.StandardCharsets.US_ASCII);
            assertEquals("HTTP/1.1 200", answer);
            for (java.net.Socket client : clients) {
                client.close();
            }
            assertEquals(200, get(proxy.port, "/status/200").statusCode());
            String metrics = get(proxy.adminPort, "/metrics").body();
            double failures = metricValue(metrics, "kodiak_listener_accept_failures_total");
            assertTrue(failures >= 1, "the limit was reached: " + failures);
            // One failed accept per 100 ms pause at most (and a few more at its edges).
            assertTrue(failures <= heldMillis / 100.0 + 5, failures + " failed accepts in " + heldMillis + " ms");
            assertContains(Files.readString(proxy.base.resolve("logs/kodiak.log")), "accepting a client connection failed");
        } finally {
            for (java.net.Socket client : clients) {
                client.close();
            }
        }
    }

    private static long openFiles(Path fds) {
        try (var list = Files.list(fds)) {
            return list.count();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Field {@code column} (3: soft, 4: hard) of the "Max open files" line of /proc/PID/limits. */
    private static long openFileLimit(long pid, int column) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/limits"))) {
            if (line.startsWith("Max open files")) {
                return Long.parseLong(line.substring("Max open files".length()).trim().split("\\s+")[column - 3]);
            }
        }
        throw new AssertionError("no open-file limit in /proc/" + pid + "/limits");
    }

    private static void prlimit(long pid, int soft, long hard) throws Exception {
        Process set = new ProcessBuilder("prlimit", "--pid", Long.toString(pid), "--nofile=" + soft + ":" + hard)
                .redirectErrorStream(true).start();
        String output = new String(set.getInputStream().readAllBytes());
        assertEquals(0, set.waitFor(), "prlimit: " + output);
    }

    /** User and system CPU of the process, in clock ticks (/proc/PID/stat fields 14 and 15). */
    private static long cpuTicks(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }

    private static double metricValue(String metrics, String name) {
        for (String line : metrics.split("\n")) {
            if (line.startsWith(name + " ")) {
                return Double.parseDouble(line.substring(name.length() + 1).trim());
            }
        }
        throw new AssertionError(name + " not in the metrics");
    }

    @Test
    void runStaysInTheForegroundAndDrainsOnSigterm() throws Exception {
        Process foreground = proxy.spawn("run", dir.resolve("run.out"));
        try {
            await(() -> accepts(proxy.port) || !foreground.isAlive(), 60, "the foreground proxy to listen");
            assertTrue(foreground.isAlive(), () -> "run exited: " + read(dir.resolve("run.out")));
            assertEquals(foreground.pid(), proxy.pid().orElseThrow(), "run execs the JVM under the script's own pid");

            ProxyScript.Result status = proxy.run("status");
            assertEquals(0, status.exitCode(), status.output());
            assertContains(status.output(), "Kodiak is running: pid " + foreground.pid());

            foreground.destroy();
            assertTrue(foreground.waitFor(30, TimeUnit.SECONDS), "SIGTERM stops the foreground proxy");
            assertFalse(accepts(proxy.port));
            assertFalse(Files.exists(proxy.base.resolve("proxy.pid")), "the JVM removes the pid file it was started with");
        } finally {
            foreground.destroyForcibly();
        }
    }

    /** The end of the instance's application log, for a failure's message. */
    private String logTail() {
        try {
            List<String> lines = Files.readAllLines(proxy.base.resolve("logs/kodiak.log"));
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (java.io.IOException e) {
            return "(no kodiak.log: " + e + ")";
        }
    }
}
