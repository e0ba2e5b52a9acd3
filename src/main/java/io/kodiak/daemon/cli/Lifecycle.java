package io.kodiak.daemon.cli;

import io.kodiak.config.ProxyConfig;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** start, run and stop: the daemon's JVM started in the background or the foreground, and drained. */
final class Lifecycle {
    /** How long start waits for the listener once the JVM runs (it is up in about a second). */
    private static final long START_SECONDS = 60;
    /** On top of the grace period, time for the JVM to close everything and exit after the drain. */
    private static final long STOP_MARGIN_SECONDS = 15;
    private static final int LOG_TAIL_LINES = 25;

    private final Installation installation;
    private final Instance instance;
    private final Path conf;
    private final List<String> javaOpts;
    private final PrintStream out;

    Lifecycle(Installation installation, Instance instance, Path conf, List<String> javaOpts, PrintStream out) {
        this.installation = installation;
        this.instance = instance;
        this.conf = conf;
        this.javaOpts = javaOpts;
        this.out = out;
    }

    private void refuseIfRunning() throws CommandFailed {
        Optional<Long> pid = instance.pid();
        if (pid.isPresent()) {
            String where = instance.recordedSettings().map(s -> ", listening on " + s.listeners()).orElse("");
            throw new CommandFailed(1, "Kodiak is already running (pid " + pid.get() + where + ", base " + instance.base
                    + "); refusing to start a second one");
        }
    }

    /** The validated configuration and the daemon's command line. */
    private record Prepared(ProxyConfig config, RecordedSettings settings, List<String> command) {
    }

    private Prepared prepare(PrintStream err) throws CommandFailed, IOException {
        refuseIfRunning();
        ProxyConfig config = ConfigurationCheck.load(conf, javaOpts);
        ConfigurationCheck.requireFixedPorts(config);
        installation.noteIfStale(err);
        Files.createDirectories(instance.logs);
        List<String> command = DaemonCommand.of(instance, installation, conf, javaOpts, installation.daemonClasspath());
        return new Prepared(config, RecordedSettings.of(config), command);
    }

    /** Starts the daemon in the background; returns once its listener accepts connections. */
    int start(PrintStream err) throws CommandFailed, IOException, InterruptedException {
        Prepared prepared = prepare(err);
        RecordedSettings settings = prepared.settings();
        if (settings.adminEnabled() && Ports.accepting(settings.adminHost(), settings.adminPort())) {
            throw new CommandFailed(1, "Kodiak: cannot start, the admin address " + settings.adminHost() + ":"
                    + settings.adminPort() + " (proxy.admin) is already in use by another process");
        }
        for (String address : settings.extraAddresses()) {
            String[] hostPort = address.split(" ");
            if (Ports.accepting(hostPort[0], Integer.parseInt(hostPort[1]))) {
                throw new CommandFailed(1, "Kodiak: cannot start, the address " + hostPort[0] + ":" + hostPort[1]
                        + " (proxy.listeners) is already in use by another process");
            }
        }
        String host = prepared.config().listener().host();
        int port = prepared.config().listener().port();
        if (Ports.accepting(host, port)) {
            throw new CommandFailed(1, "Kodiak: cannot start, " + host + ":" + port + " is already in use by another process");
        }
        instance.forget();
        // One start per file, so a failed start shows its own last lines; the previous run's stay in console.log.1.
        if (Files.exists(instance.consoleLog)) {
            Files.move(instance.consoleLog, instance.logs.resolve("console.log.1"), StandardCopyOption.REPLACE_EXISTING);
        }
        Files.writeString(instance.consoleLog, "--- " + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss"))
                + " starting Kodiak: " + String.join(" ", prepared.command()) + "\n", StandardCharsets.UTF_8);
        Process daemon = new ProcessBuilder(Detached.prefix(prepared.command()))
                .directory(instance.base.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.appendTo(instance.consoleLog.toFile()))
                .redirectErrorStream(true)
                .start();
        instance.writePid(daemon.pid());
        String failure = awaitListener(daemon, host, port);
        if (failure != null) {
            instance.forget();
            throw new CommandFailed(1, failure + "; last lines of " + instance.consoleLog + ":\n" + tail(instance.consoleLog));
        }
        out.println("Kodiak started: pid " + daemon.pid() + ", listening on " + settings.listeners());
        settings.routes().forEach(route -> out.println("  route     " + route));
        if (settings.adminEnabled()) {
            out.println("  admin     " + settings.adminUrl() + "/health, " + settings.adminUrl() + "/metrics");
        }
        out.println("  config    " + conf);
        out.println("  logs      " + instance.logs + "/");
        return 0;
    }

    /** Null once host:port accepts; else why not (the JVM exited, or took too long and was stopped). */
    private static String awaitListener(Process daemon, String host, int port) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_SECONDS);
        while (System.nanoTime() < deadline) {
            if (Ports.accepting(host, port)) {
                return null;
            }
            if (daemon.waitFor(200, TimeUnit.MILLISECONDS)) {
                return "Kodiak: the process exited during start-up";
            }
        }
        daemon.destroy();
        return "Kodiak: " + host + ":" + port + " did not accept connections within " + START_SECONDS + "s; stopping pid " + daemon.pid();
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()));
        } catch (IOException e) {
            return "(cannot read it: " + e.getMessage() + ")";
        }
    }

    /**
     * run: validates and prints the daemon's command line, one argument per line, for bin/proxy.sh
     * to exec in its own process (so that the pid it records is the JVM's). Says where it runs on stderr.
     */
    int printRunCommand(PrintStream err) throws CommandFailed, IOException {
        Prepared prepared = prepare(err);
        for (String argument : prepared.command()) {
            if (argument.indexOf('\n') >= 0) {
                throw new CommandFailed(2, "kodiak: a line break in an argument of the daemon's command line: " + argument);
            }
        }
        instance.forget();
        prepared.command().forEach(out::println);
        err.println("Kodiak running in the foreground on " + prepared.settings().listeners() + "; logs in " + instance.logs + "/");
        return 0;
    }

    /** Drains (in-flight exchanges finish within the grace period in service), then the JVM exits. */
    int stop() throws InterruptedException {
        Optional<Long> pid = instance.pid();
        Optional<ProcessHandle> process = pid.flatMap(ProcessHandle::of);
        if (process.isEmpty()) {
            instance.forget();
            out.println("Kodiak is not running");
            return 0;
        }
        long seconds = instance.recordedSettings().map(RecordedSettings::graceSeconds).orElse(30L) + STOP_MARGIN_SECONDS;
        out.println("stopping Kodiak (pid " + pid.get() + ")…");
        out.flush();
        process.get().destroy();
        try {
            process.get().onExit().get(seconds, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            out.println("Kodiak did not exit within " + seconds + "s; killing pid " + pid.get());
            process.get().destroyForcibly();
            try {
                process.get().onExit().get();
            } catch (ExecutionException impossible) {
                throw new IllegalStateException(impossible);
            }
        } catch (ExecutionException impossible) {
            throw new IllegalStateException(impossible);
        }
        instance.forget();
        out.println("Kodiak stopped");
        return 0;
    }

    /** The daemon detached from this terminal, with SIGHUP as the kernel's default for the JVM to take over. */
    static final class Detached {
        private Detached() {
        }

        /**
         * setsid: no controlling terminal, so no hang-up reaches the daemon from one (and not nohup,
         * which would ignore SIGHUP for good). A caller may itself run under nohup, and an ignored
         * signal stays ignored across exec: env --default-signal (coreutils 8.31+) restores it first.
         */
        static List<String> prefix(List<String> command) {
            List<String> full = new ArrayList<>();
            Path setsid = found("setsid");
            if (setsid != null) {
                full.add(setsid.toString());
            }
            Path env = found("env");
            if (env != null && restoresSignals(env)) {
                full.addAll(List.of(env.toString(), "--default-signal=HUP"));
            }
            full.addAll(command);
            return full;
        }

        private static Path found(String name) {
            for (String dir : List.of("/usr/bin", "/bin")) {
                Path candidate = Path.of(dir, name);
                if (Files.isExecutable(candidate)) {
                    return candidate;
                }
            }
            return null;
        }

        private static boolean restoresSignals(Path env) {
            try {
                Process probe = new ProcessBuilder(env.toString(), "--default-signal=HUP", "true")
                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                return probe.waitFor(5, TimeUnit.SECONDS) && probe.exitValue() == 0;
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }
}
