package io.kodiak.daemon.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * reload: POST /reload to the running daemon's admin listener, which validates the file itself
 * (with its own -D overrides) and applies all of it or nothing. Exit 0 applied, 2 refused (the
 * running configuration stays), 3 not running, 1 no answer or a failure.
 */
final class ReloadCommand {
    /** A reload takes well under a second; a minute covers a JVM that is busy or short of memory. */
    private static final Duration ANSWER_WITHIN = Duration.ofSeconds(60);

    private final Instance instance;
    /** Null: the file in service. */
    private final Path conf;
    private final PrintStream out;

    ReloadCommand(Instance instance, Path conf, PrintStream out) {
        this.instance = instance;
        this.conf = conf;
        this.out = out;
    }

    /**
     * Without the admin listener there is nobody to answer: SIGHUP re-reads the file in service
     * (systemd's ExecReload keeps working), and the outcome is the log's to say.
     */
    private int signal(long pid, RecordedSettings settings) throws CommandFailed, InterruptedException {
        if (conf != null) {
            throw new CommandFailed(1, "kodiak: reload -c FILE needs the admin listener (proxy.admin.enabled = false);"
                    + " a restart with -c FILE runs another file");
        }
        try {
            Process kill = new ProcessBuilder("kill", "-HUP", Long.toString(pid)).redirectErrorStream(true).start();
            String said = new String(kill.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).strip();
            if (kill.waitFor() != 0) {
                throw new CommandFailed(1, "kodiak: cannot signal pid " + pid + ": " + said);
            }
        } catch (IOException e) {
            throw new CommandFailed(1, "kodiak: cannot signal pid " + pid + ": " + e.getMessage());
        }
        out.println("Kodiak (pid " + pid + ") asked to re-read " + settings.configFile() + " (SIGHUP); with the admin"
                + " listener off (proxy.admin.enabled = false) the outcome is in " + instance.logs.resolve("kodiak.log"));
        return 0;
    }

    int run() throws CommandFailed, InterruptedException {
        Optional<Long> pid = instance.pid();
        if (pid.isEmpty()) {
            throw new CommandFailed(3, "Kodiak is not running (base " + instance.base + "); nothing to reload");
        }
        if (conf != null && (!Files.isRegularFile(conf) || !Files.isReadable(conf))) {
            throw new CommandFailed(2, "kodiak: configuration file " + conf + " does not exist or is not readable");
        }
        RecordedSettings settings = instance.recordedSettings().orElseThrow(() -> new CommandFailed(1,
                "kodiak: no settings recorded in " + instance.settingsFile + ": the admin listener's address is unknown"));
        if (!settings.adminEnabled()) {
            return signal(pid.get(), settings);
        }
        ObjectNode request = AdminClient.object();
        if (conf != null) {
            request.put("config_file", conf.toString());
        }
        AdminClient admin = new AdminClient(settings);
        AdminClient.Answer answer;
        try {
            answer = admin.post("/reload", request, ANSWER_WITHIN);
        } catch (IOException e) {
            throw new CommandFailed(1, "kodiak: the admin listener " + admin.url() + " did not answer the reload ("
                    + e.getMessage() + "); see " + instance.logs.resolve("kodiak.log"));
        }
        JsonNode body = answer.body();
        String file = body.path("config_file").isTextual() ? body.path("config_file").asText() : null;
        long generation = body.path("generation").asLong();
        StringBuilder lines = new StringBuilder();
        body.path("lines").forEach(line -> lines.append("\n  ").append(line.asText()));
        switch (body.path("result").asText()) {
            case "applied" -> {
                out.println("Kodiak reloaded: configuration generation " + generation + " from " + file + lines);
                return 0;
            }
            case "refused" -> throw new CommandFailed(2, "kodiak: reload refused" + (file == null ? "" : ", " + file)
                    + ": the running configuration (generation " + generation + ") stays" + lines);
            case "forbidden" -> throw new CommandFailed(1, "kodiak: the admin listener " + admin.url()
                    + " refused the reload: " + body.path("reason").asText());
            default -> throw new CommandFailed(1, "kodiak: reload failed: the running configuration stays; see "
                    + instance.logs.resolve("kodiak.log") + lines + (body.has("reason") ? "\n  " + body.path("reason").asText() : ""));
        }
    }
}
