package io.kodiak.daemon;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * One Kodiak instance driven through the real bin/proxy.sh: its own PROXY_BASE and config in a
 * temporary directory, on ports that were free when it was made.
 */
final class ProxyScript {
    /** Longest any single script call may take (start includes a JVM for the settings and one for the proxy). */
    private static final long CALL_SECONDS = 120;

    static final Path REPO = Path.of(System.getProperty("basedir", System.getProperty("user.dir"))).toAbsolutePath();
    static final Path SCRIPT = REPO.resolve("bin/proxy.sh");

    final Path base;
    final Path conf;
    final int port;
    final int adminPort;
    private Path script = SCRIPT;
    private Path workingDirectory = REPO;
    private String javaOpts = "";
    /** Null: the test's own PATH. */
    private String path;

    record Result(int exitCode, String output) {
    }

    ProxyScript(Path dir, String upstreamUrl, String extraConfig) throws IOException {
        this.base = dir.resolve("base");
        this.conf = dir.resolve("proxy.conf");
        this.port = freePort();
        this.adminPort = freePort();
        Files.writeString(conf, """
                proxy {
                  listener { host = "127.0.0.1", port = %d }
                  admin { enabled = true, host = "127.0.0.1", port = %d }
                  routes = [ { prefix = "/", upstream = "%s" } ]
                  shutdown.grace-period = 20s
                }
                """.formatted(port, adminPort, upstreamUrl) + extraConfig);
    }

    /** A port nothing listened on a moment ago; good enough for loopback tests on a quiet range. */
    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    static boolean accepts(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1_000);
            return true;
        } catch (IOException refused) {
            return false;
        }
    }

    /** Polls state that lives in another process, with a deadline. */
    static void await(BooleanSupplier condition, long seconds, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + seconds + " s waiting for " + what);
            }
            Thread.sleep(50);
        }
    }

    ProxyScript through(Path symlinkToScript, Path cwd) {
        this.script = symlinkToScript;
        this.workingDirectory = cwd;
        return this;
    }

    /** The script runs with this PATH (an installation that must not reach Maven, say). */
    ProxyScript path(String searchPath) {
        this.path = searchPath;
        return this;
    }

    ProxyScript javaOpts(String options) {
        this.javaOpts = options;
        return this;
    }

    Path pidFile() {
        return base.resolve("proxy.pid");
    }

    Optional<Long> pid() throws IOException {
        if (!Files.exists(pidFile())) {
            return Optional.empty();
        }
        return Optional.of(Long.parseLong(Files.readString(pidFile()).trim()));
    }

    private ProcessBuilder builder(String command, Path conf) {
        List<String> args = new ArrayList<>(List.of(script.toString(), command));
        if (conf != null) {
            args.add("-c");
            args.add(conf.toString());
        }
        ProcessBuilder builder = new ProcessBuilder(args).directory(workingDirectory.toFile()).redirectErrorStream(true);
        Map<String, String> env = builder.environment();
        env.remove("PROXY_CONF");
        env.put("PROXY_BASE", base.toString());
        env.put("JAVA_OPTS", javaOpts);
        if (path != null) {
            env.put("PATH", path);
        }
        return builder;
    }

    /** Runs {@code bin/proxy.sh COMMAND -c CONF} to completion. */
    Result run(String command) throws IOException, InterruptedException {
        return run(command, conf);
    }

    Result run(String command, Path conf) throws IOException, InterruptedException {
        Process process = builder(command, conf).start();
        // The daemon's own output goes to its log, so this stream ends when the script does.
        byte[] output = process.getInputStream().readAllBytes();
        if (!process.waitFor(CALL_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("bin/proxy.sh " + command + " did not finish within " + CALL_SECONDS + " s");
        }
        return new Result(process.exitValue(), new String(output, StandardCharsets.UTF_8));
    }

    /** Starts {@code bin/proxy.sh COMMAND -c CONF} without waiting; its output goes to {@code output}. */
    Process spawn(String command, Path output) throws IOException {
        return builder(command, conf).redirectOutput(output.toFile()).start();
    }

    /** Stops the instance if a test left it running; only the process recorded in our own pid file. */
    void cleanUp() throws IOException, InterruptedException {
        Optional<Long> pid = pid();
        if (pid.isEmpty() || ProcessHandle.of(pid.get()).isEmpty()) {
            return;
        }
        run("stop");
        Optional<ProcessHandle> left = pid().flatMap(ProcessHandle::of);
        if (left.isPresent() && left.get().info().commandLine().orElse("").contains("-Dkodiak.daemon=proxy:" + base + " ")) {
            left.get().destroyForcibly();
        }
    }
}
