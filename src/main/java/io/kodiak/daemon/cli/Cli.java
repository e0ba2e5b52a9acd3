package io.kodiak.daemon.cli;

import io.kodiak.admin.Version;
import io.kodiak.config.ProxyConfig;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * bin/proxy.sh's commands, which it hands over to this JVM once it has found Java, the base
 * directory (the working directory here, as for the daemon) and Kodiak's classes. Properties from
 * the script: {@code kodiak.home} (the installation or checkout) and {@code kodiak.caller-dir}
 * (where the script was called, for a relative -c FILE or PROXY_CONF).
 */
public final class Cli {
    private static final Set<String> COMMANDS = Set.of("start", "stop", "restart", "reload", "status", "check", "run",
            "version", "--version", "help", "-h", "--help");

    private Cli() {
    }

    public static void main(String[] args) {
        // Before anything logs: logback's default would print debug lines to stdout, which is the answer here.
        System.setProperty("logback.configurationFile", "io/kodiak/daemon/cli/logback-cli.xml");
        PrintStream out = System.out;
        int code = run(args, System.getenv(), out, System.err);
        out.flush();
        System.exit(code);
    }

    static String usage(Path home) {
        return """
                usage: proxy.sh start|stop|restart|reload|status|check|run|version [-c FILE]
                  start    build if needed, start in the background, return once the listener accepts connections
                  stop     drain (finish in-flight exchanges within proxy.shutdown.grace-period) and stop
                  restart  stop, then start
                  reload   re-read the configuration (the running one's file, or -c FILE) without dropping anything,
                           through the admin listener (POST /reload); exit 0 applied, 2 refused (the running
                           configuration stays), 3 not running
                  status   exit 0 and a summary when running, 3 when not
                  check    validate the configuration (as start and reload would) without starting anything;
                           exit 0 valid, 2 each problem named (nginx -t, haproxy -c)
                  run      in the foreground (systemd, containers); SIGTERM drains like stop
                  version  Kodiak's version (also --version)
                  -c FILE  configuration file (default $PROXY_CONF, else %1$s/conf/proxy.conf)
                environment: PROXY_CONF, PROXY_BASE (pid file and logs/; default %1$s), JAVA_OPTS (-Dproxy.<key>=<value> overrides a key)
                exit codes: 0 done, 1 failed (not started, already running, no answer to a reload), 2 bad usage or
                configuration (a reload refused), 3 not running (status, reload)""".formatted(home);
    }

    /** Runs one command; returns its exit code. */
    static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
        Path home = Path.of(System.getProperty("kodiak.home", ".")).toAbsolutePath().normalize();
        String command = args.length > 0 ? args[0] : "";
        String confOption = null;
        boolean usable = COMMANDS.contains(command);
        for (int i = 1; usable && i < args.length; i += 2) {
            usable = args[i].equals("-c") && i + 1 < args.length;
            confOption = usable ? args[i + 1] : null;
        }
        if (!usable || command.equals("help") || command.startsWith("-h") || command.equals("--help")) {
            err.println(usage(home));
            return usable ? 0 : 2;
        }
        if (command.equals("version") || command.equals("--version")) {
            out.println("Kodiak " + Version.current());
            return 0;
        }
        Path callerDir = Path.of(System.getProperty("kodiak.caller-dir", ".")).toAbsolutePath();
        String confName = confOption != null ? confOption : env.getOrDefault("PROXY_CONF", "");
        Path conf = confName.isEmpty() ? home.resolve("conf/proxy.conf") : callerDir.resolve(confName).normalize();
        Instance instance = new Instance(Path.of(env.getOrDefault("PROXY_BASE", ".")));
        List<String> javaOpts = DaemonCommand.words(env.get("JAVA_OPTS"));
        Lifecycle lifecycle = new Lifecycle(new Installation(home), instance, conf, javaOpts, out);
        try {
            return switch (command) {
                case "start" -> lifecycle.start(err);
                case "stop" -> lifecycle.stop();
                case "restart" -> {
                    lifecycle.stop();
                    yield lifecycle.start(err);
                }
                case "run" -> lifecycle.printRunCommand(err);
                case "status" -> new StatusCommand(instance, out).run();
                case "reload" -> new ReloadCommand(instance, confOption == null ? null : conf, out).run();
                case "check" -> check(conf, javaOpts, out);
                default -> throw new IllegalStateException(command);
            };
        } catch (CommandFailed e) {
            out.flush();
            err.println(e.getMessage());
            return e.exitCode;
        } catch (IOException e) {
            out.flush();
            err.println("kodiak: " + command + " failed: " + e);
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
    }

    /** As start and reload would validate it, without starting anything. */
    private static int check(Path conf, List<String> javaOpts, PrintStream out) throws CommandFailed {
        ProxyConfig config = ConfigurationCheck.load(conf, javaOpts);
        ConfigurationCheck.requireFixedPorts(config);
        RecordedSettings settings = RecordedSettings.of(config);
        out.println("configuration OK: " + conf + " (" + settings.routes().size() + " routes; listening on "
                + settings.listeners() + ")");
        return 0;
    }
}
