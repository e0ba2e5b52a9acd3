package io.kodiak.stub.cli;

import io.kodiak.stub.embedded.StubServerConfig;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * bin/stub.sh's commands (start|stop|status|run), handed over once the script found Java, the
 * stub's jar and its base directory. Settings come from the environment (STUB_PORT, STUB_DELAY_MS,
 * STUB_MODE, STUB_HOST, STUB_THREADS, JAVA_OPTS), validated here as the stub itself reads them.
 * Property {@code stub.dir}: the stub module (its target/ holds the jar and lib/).
 */
public final class StubCli {
    private static final int START_SECONDS = 60;

    private final Map<String, String> env;
    private final StubInstance instance;
    private final Path stubDir;
    private final PrintStream out;

    private StubCli(Map<String, String> env, Path stubDir, PrintStream out) {
        this.env = env;
        this.instance = new StubInstance(Path.of(env.getOrDefault("STUB_BASE", ".")));
        this.stubDir = stubDir;
        this.out = out;
    }

    public static void main(String[] args) throws Exception {
        System.exit(run(args, System.getenv(), System.out, System.err));
    }

    static String usage() {
        return """
                usage: stub.sh start|stop|status|run
                  STUB_PORT (8080) STUB_DELAY_MS (500) STUB_MODE (async|blocking) STUB_HOST (127.0.0.1)
                  STUB_BASE (pid file and logs/; default the repository root)  STUB_THREADS (Tomcat worker threads)  JAVA_OPTS""";
    }

    static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) throws Exception {
        String command = args.length == 1 ? args[0] : "";
        StubCli cli = new StubCli(env, Path.of(System.getProperty("stub.dir", "stub")).toAbsolutePath(), out);
        try {
            return switch (command) {
                case "start" -> cli.start();
                case "stop" -> cli.stop();
                case "status" -> cli.status();
                case "run" -> cli.printRunCommand();
                case "help", "-h", "--help" -> {
                    err.println(usage());
                    yield 0;
                }
                default -> {
                    err.println(usage());
                    yield 2;
                }
            };
        } catch (Refused e) {
            out.flush();
            err.println(e.getMessage());
            return e.exitCode;
        }
    }

    private static final class Refused extends Exception {
        final int exitCode;

        Refused(int exitCode, String message) {
            super(message);
            this.exitCode = exitCode;
        }
    }

    /** The settings as the stub will read them: exit 2 naming the variable when one is invalid. */
    private StubServerConfig validated() throws Refused {
        try {
            return StubServerConfig.fromEnvironment(env);
        } catch (IllegalArgumentException e) {
            throw new Refused(2, "stub: " + e.getMessage());
        }
    }

    private void refuseIfRunning(String verb) throws Refused {
        Optional<Long> pid = instance.pid();
        if (pid.isPresent()) {
            throw new Refused(1, "stub is already running (" + StubInstance.describe(pid.get()) + "); refusing to " + verb
                    + " a second one");
        }
    }

    private int start() throws Exception {
        StubServerConfig config = validated();
        refuseIfRunning("start");
        if (accepting(config.host(), config.port())) {
            throw new Refused(1, "stub: cannot start, " + config.host() + ":" + config.port() + " is already in use by another process");
        }
        List<String> command = command(config);
        Files.createDirectories(instance.log.getParent());
        Files.writeString(instance.log, "--- " + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss"))
                + " starting stub: " + String.join(" ", command) + "\n", StandardCharsets.UTF_8,
                java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
        List<String> detached = new ArrayList<>();
        if (Files.isExecutable(Path.of("/usr/bin/setsid"))) {
            // No controlling terminal: no hang-up reaches the stub from one.
            detached.add("/usr/bin/setsid");
        }
        detached.addAll(command);
        ProcessBuilder builder = new ProcessBuilder(detached).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.appendTo(instance.log.toFile()));
        exportSettings(builder.environment(), config);
        Process stub = builder.start();
        Files.writeString(instance.pidFile, stub.pid() + "\n", StandardCharsets.US_ASCII);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_SECONDS);
        while (!accepting(config.host(), config.port())) {
            String failure = null;
            if (stub.waitFor(200, TimeUnit.MILLISECONDS)) {
                failure = "stub: the process exited during start-up";
            } else if (System.nanoTime() > deadline) {
                stub.destroy();
                failure = "stub: " + config.host() + ":" + config.port() + " did not accept connections within " + START_SECONDS + "s";
            }
            if (failure != null) {
                Files.deleteIfExists(instance.pidFile);
                List<String> lines = Files.readAllLines(instance.log, StandardCharsets.UTF_8);
                throw new Refused(1, failure + "; last lines of " + instance.log + ":\n"
                        + String.join("\n", lines.subList(Math.max(0, lines.size() - 25), lines.size())));
            }
        }
        out.println("stub started: " + StubInstance.describe(stub.pid()) + "; log " + instance.log);
        return 0;
    }

    /** What the stub reads, as validated (no leading zeros read differently there). */
    private static void exportSettings(Map<String, String> environment, StubServerConfig config) {
        environment.put("STUB_HOST", config.host());
        environment.put("STUB_PORT", Integer.toString(config.port()));
        environment.put("STUB_DELAY_MS", Integer.toString(config.settings().delayMs()));
        environment.put("STUB_MODE", config.settings().mode().label());
        environment.put("STUB_THREADS", Integer.toString(config.threads()));
    }

    private int stop() throws Exception {
        Optional<ProcessHandle> stub = instance.pid().flatMap(ProcessHandle::of);
        if (stub.isEmpty()) {
            Files.deleteIfExists(instance.pidFile);
            out.println("stub is not running");
            return 0;
        }
        // The stub lets waiting exchanges finish: up to one delay + 5 s before it exits.
        long seconds = Long.parseLong(StubInstance.setting(stub.get().pid(), "STUB_DELAY_MS", "500")) / 1000 + 30;
        out.println("stopping stub (pid " + stub.get().pid() + ")…");
        stub.get().destroy();
        try {
            stub.get().onExit().get(seconds, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            out.println("stub did not exit within " + seconds + "s; killing pid " + stub.get().pid());
            stub.get().destroyForcibly();
            stub.get().onExit().get();
        }
        Files.deleteIfExists(instance.pidFile);
        out.println("stub stopped");
        return 0;
    }

    private int status() {
        Optional<Long> pid = instance.pid();
        if (pid.isEmpty()) {
            out.println("stub is not running (base " + instance.base + ")");
            return 3;
        }
        long up = ProcessHandle.of(pid.get()).flatMap(p -> p.info().startInstant())
                .map(start -> Duration.between(start, Instant.now()).toSeconds()).orElse(0L);
        out.println("stub is running: " + StubInstance.describe(pid.get()) + ", up " + up + " s; base " + instance.base);
        return 0;
    }

    /** run: the stub's command line, one argument per line, for bin/stub.sh to exec with the validated settings. */
    private int printRunCommand() throws Exception {
        StubServerConfig config = validated();
        refuseIfRunning("run");
        Files.createDirectories(instance.log.getParent());
        command(config).forEach(out::println);
        return 0;
    }

    private List<String> command(StubServerConfig config) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        List<String> javaOpts = env.getOrDefault("JAVA_OPTS", "").isBlank() ? List.of()
                : Arrays.asList(env.get("JAVA_OPTS").strip().split("\\s+"));
        // ZGC unless JAVA_OPTS picks a collector. The stub is the service every bench compares against, so its
        // own pauses must not decide which target looks slow: under the default G1, its young pauses grew to
        // 230 and 243 ms in a 10x Gatling run (Tomcat keeps about 100 KB per connection, 2,000 connections) and
        // landed in whichever target ran then; under ZGC every pause is under a millisecond (docs/stub.md).
        if (javaOpts.stream().noneMatch(word -> word.matches("-XX:\\+Use[A-Za-z0-9]*GC"))) {
            command.add("-XX:+UseZGC");
        }
        command.addAll(javaOpts);
        command.addAll(List.of(instance.marker, "-cp", snapshot() + ":" + stubDir.resolve("target/lib") + "/*",
                "io.kodiak.stub.embedded.StubMain"));
        return command;
    }

    /**
     * The jar the stub runs from: a copy named by its content. Maven rewrites target/kodiak-stub.jar
     * in place, which would pull classes out from under a running stub whenever the tests run.
     */
    private Path snapshot() throws IOException {
        Path jar = stubDir.resolve("target/kodiak-stub.jar");
        String sum;
        try (InputStream in = new DigestInputStream(Files.newInputStream(jar), MessageDigest.getInstance("SHA-1"))) {
            in.transferTo(java.io.OutputStream.nullOutputStream());
            sum = HexFormat.of().formatHex(((DigestInputStream) in).getMessageDigest().digest()).substring(0, 12);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-1", e);
        }
        Path copy = stubDir.resolve("target/runtime/kodiak-stub-" + sum + ".jar");
        if (!Files.isRegularFile(copy)) {
            Files.createDirectories(copy.getParent());
            Path temporary = Files.createTempFile(copy.getParent(), ".copy", ".jar");
            Files.copy(jar, temporary, StandardCopyOption.REPLACE_EXISTING);
            Files.move(temporary, copy, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        return copy;
    }

    private static boolean accepting(String host, int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 1_000);
            return true;
        } catch (IOException | IllegalArgumentException refused) {
            return false;
        }
    }
}
