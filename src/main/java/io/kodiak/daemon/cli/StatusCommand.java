package io.kodiak.daemon.cli;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * status: exit 0 and what is known when running (the recorded settings, then the admin listener's
 * GET /status and GET /upstreams), 3 when not (LSB).
 */
final class StatusCommand {
    private final Instance instance;
    private final PrintStream out;

    StatusCommand(Instance instance, PrintStream out) {
        this.instance = instance;
        this.out = out;
    }

    int run() throws InterruptedException {
        Optional<Long> pid = instance.pid();
        if (pid.isEmpty()) {
            out.println(java.nio.file.Files.exists(instance.pidFile)
                    ? "Kodiak is not running (stale pid file " + instance.pidFile + "; base " + instance.base + ")"
                    : "Kodiak is not running (base " + instance.base + ")");
            return 3;
        }
        long up = ProcessHandle.of(pid.get()).flatMap(p -> p.info().startInstant())
                .map(start -> Duration.between(start, Instant.now()).toSeconds()).orElse(0L);
        out.println("Kodiak is running: pid " + pid.get() + ", up " + duration(up) + ", base " + instance.base);
        Optional<RecordedSettings> recorded = instance.recordedSettings();
        if (recorded.isEmpty()) {
            out.println("  (no settings recorded in " + instance.settingsFile + ": listener and routes unknown)");
            return 0;
        }
        RecordedSettings settings = recorded.get();
        out.println("  listener  " + settings.listeners());
        // As it runs: proxy.tracing is restart only, and the daemon records the running values.
        out.println(settings.tracing() ? "  tracing   on: sampler " + settings.tracingSampler() + ", spans to "
                + settings.tracingEndpoint() : "  tracing   off");
        settings.routes().forEach(route -> out.println("  route     " + route));
        if (!settings.adminEnabled()) {
            out.println("  live      in-flight and upstream pool use need the admin listener (proxy.admin.enabled = false)");
            return 0;
        }
        AdminClient admin = new AdminClient(settings);
        JsonNode status;
        JsonNode upstreams;
        try {
            status = admin.get("/status");
            upstreams = admin.get("/upstreams");
        } catch (IOException e) {
            out.println("  admin     " + settings.adminUrl() + " is not answering");
            return 0;
        }
        printLive(settings, status, upstreams);
        return 0;
    }

    private void printLive(RecordedSettings settings, JsonNode status, JsonNode upstreams) {
        out.println("  health    " + status.path("status").asText() + " (" + settings.adminUrl() + "/health)");
        out.println("  config    generation " + status.path("generation").asLong() + ", loaded "
                + status.path("loaded_at").asText() + (settings.configFile() == null ? "" : " from " + settings.configFile()));
        JsonNode clients = status.path("clients");
        out.printf("  clients   %d connections open of max %d (accepting paused %d times at the max)%n",
                clients.path("open").asLong(), clients.path("max").asLong(), clients.path("accept_pauses").asLong());
        out.printf("  in flight %d exchanges (%d requests since start)%n", status.path("in_flight").asLong(),
                status.path("requests").asLong());
        if (status.has("spans")) {
            out.printf("  spans     %d exported, %d dropped (export queue full)%n",
                    status.path("spans").path("exported").asLong(), status.path("spans").path("dropped").asLong());
        }
        printServers(upstreams.path("groups"));
        for (JsonNode name : upstreams.path("resolved")) {
            List<String> addresses = new ArrayList<>();
            name.path("addresses").forEach(a -> addresses.add(a.asText()));
            String failing = name.path("failing").isTextual() ? "; failing: " + name.path("failing").asText() : "";
            String resolved = name.path("resolved_at").isTextual() ? name.path("resolved_at").asText() : "never";
            out.println("  resolved  " + name.path("name").asText() + " (" + name.path("type").asText() + "): "
                    + (addresses.isEmpty() ? "no address" : String.join(", ", addresses)) + ", last resolved " + resolved + failing);
        }
    }

    /** One line per server, a group's servers together; a route's own host:port is a group of one named after it. */
    private void printServers(JsonNode groups) {
        record Line(String key, String text) {
        }
        List<Line> lines = new ArrayList<>();
        for (JsonNode group : groups) {
            boolean h2 = "h2".equals(group.path("protocol").asText());
            for (JsonNode server : group.path("servers")) {
                String address = server.path("address").asText();
                String groupName = group.path("name").asText();
                String name = groupName.equals(address) ? address : groupName + " " + address;
                String head = "  upstream  " + name + ": " + server.path("state").asText() + ", "
                        + server.path("in_flight").asLong() + " in flight, " + server.path("failures").asLong() + " failures; ";
                String pool = h2
                        ? server.path("open_connections").asLong() + " h2 connections of max " + server.path("max_connections").asLong()
                        : server.path("open_connections").asLong() + " open (" + server.path("leased_connections").asLong()
                        + " leased, " + server.path("idle_connections").asLong() + " idle) of max "
                        + server.path("max_connections").asLong() + ", " + server.path("pending").asLong() + " waiting";
                lines.add(new Line(groupName + " " + address, head + pool));
            }
        }
        lines.stream().sorted(Comparator.comparing(Line::key)).forEach(line -> out.println(line.text()));
    }

    static String duration(long seconds) {
        if (seconds >= 86_400) {
            return String.format("%dd %02dh %02dm", seconds / 86_400, seconds % 86_400 / 3_600, seconds % 3_600 / 60);
        }
        if (seconds >= 3_600) {
            return String.format("%dh %02dm %02ds", seconds / 3_600, seconds % 3_600 / 60, seconds % 60);
        }
        return String.format("%dm %02ds", seconds / 60, seconds % 60);
    }
}
