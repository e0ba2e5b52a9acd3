package io.kodiak.daemon;

import io.kodiak.Kodiak;
import io.kodiak.ReloadRefusedException;
import io.kodiak.admin.Monitoring;
import io.kodiak.admin.SettingsReport;
import io.kodiak.config.ConfigException;
import io.kodiak.config.ConfigLoader;
import io.kodiak.config.ProxyConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Re-reads the configuration and puts it in service ({@link Kodiak#reload}), or refuses it and
 * keeps the one in service. One reload at a time, on the caller's thread (SIGHUP's handler hands
 * it to a thread of its own). The file is the one Kodiak runs with, or the one a reload request
 * names, which becomes the one it runs with.
 */
final class Reloader {
    private static final Logger LOG = LoggerFactory.getLogger(Reloader.class);

    /** How a reload ended; bin/proxy.sh reload exits 0, 2 and 1 for them (POST /reload answers 200, 422, 500). */
    enum Result {
        /** In service. */
        APPLIED,
        /** Not applied: the file (or a certificate, an address) is wrong; the configuration in service stays. */
        REFUSED,
        /** Not applied because of a defect (logged with its stack trace); the configuration in service stays. */
        FAILED
    }

    /**
     * The outcome, for the log and POST /reload; {@code file} null when no file was read;
     * {@code restartOnly} the keys changed whose running value stays until a restart (also said in {@code lines}).
     */
    record Outcome(Result result, long generation, File file, List<String> lines, List<String> restartOnly) {
    }

    private final Kodiak kodiak;
    private final Monitoring monitoring;
    private final LogConfiguration logging;
    /** Null when not run by bin/proxy.sh: then nothing records the settings for it. */
    private final Path settingsFile;
    private File file;

    Reloader(Kodiak kodiak, Monitoring monitoring, File file, LogConfiguration logging, Path settingsFile) {
        this.kodiak = kodiak;
        this.monitoring = monitoring;
        this.file = file;
        this.logging = logging;
        this.settingsFile = settingsFile;
    }

    /** {@code named} is the file in service (by its absolute, normalized path). */
    synchronized boolean inService(File named) {
        return file != null && file.toPath().toAbsolutePath().normalize().equals(named.toPath().toAbsolutePath().normalize());
    }

    /** Reloads from {@code requested}, or from the file in service when null. */
    synchronized Outcome reload(File requested) {
        File from = requested != null ? requested : file;
        ProxyConfig before = kodiak.config();
        ProxyConfig next;
        try {
            // A file other than the one in service was named over the admin listener: its parse
            // errors are not quoted back (they would show a file that is not a configuration).
            next = ConfigLoader.load(from, requested == null || requested.equals(file));
        } catch (ConfigException e) {
            return refused(from, e.getMessage());
        }
        Monitoring.AdminMove move;
        try {
            move = monitoring.prepareMove(next);
        } catch (IOException e) {
            return refused(from, "cannot listen on admin " + next.admin().host() + ":" + next.admin().port()
                    + " (proxy.admin): " + e.getMessage());
        }
        Kodiak.Reloaded reloaded;
        try {
            reloaded = kodiak.reload(next);
        } catch (ReloadRefusedException e) {
            monitoring.abandonMove(move);
            return refused(from, e.getMessage());
        } catch (RuntimeException e) {
            monitoring.abandonMove(move);
            LOG.error("reload failed, the configuration in service (generation {}) stays", kodiak.generation().number(), e);
            return new Outcome(Result.FAILED, kodiak.generation().number(), from, List.of("reload failed: " + e), List.of());
        }
        monitoring.reloaded(kodiak, move);
        file = from;

        List<String> lines = new ArrayList<>(ConfigChanges.between(before, next).lines());
        reloaded.addressesAdded().forEach(a -> lines.add("listening on " + a));
        reloaded.addressesRemoved().forEach(a -> lines.add("stopped listening on " + a + " (its open connections finish)"));
        if (move != null) {
            lines.add("admin listener moved to " + next.admin().host() + ":" + next.admin().port());
        }
        String logLine = logging.reloadIfChanged();
        if (logLine != null) {
            lines.add(logLine);
        }
        long generation = reloaded.generation().number();
        LOG.info("configuration generation {} in service, from {}{}", generation, from,
                lines.isEmpty() ? " (no changes)" : "");
        lines.forEach(line -> LOG.info("  {}", line));
        List<String> warnings = new ArrayList<>();
        List<String> restartOnly = ConfigChanges.restartOnly(before, next);
        restartOnly.forEach(key -> warnings.add(
                key + " changed: it applies at the next restart (the running value stays)"));
        warnings.addAll(reloaded.warnings());
        warnings.addAll(next.warnings());
        warnings.forEach(warning -> LOG.warn("{}", warning));
        lines.addAll(warnings);
        recordSettings(next, from);
        return new Outcome(Result.APPLIED, generation, from, lines, restartOnly);
    }

    private Outcome refused(File from, String why) {
        monitoring.reloadRefused();
        LOG.error("reload refused, the configuration in service (generation {}) stays: {}{}",
                kodiak.generation().number(), from == null ? "" : from + ": ", why);
        return new Outcome(Result.REFUSED, kodiak.generation().number(), from, List.of(why.split("\n")), List.of());
    }

    /** What bin/proxy.sh status and stop read: the settings now in service, and their file. */
    void recordSettings(ProxyConfig config, File from) {
        if (settingsFile == null) {
            return;
        }
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(text, true, StandardCharsets.UTF_8)) {
            // Restart-only keys as they run, not as the file now says: status must not show an
            // admin listener a reload cannot start (or one as stopped that still runs).
            SettingsReport.print(config, monitoring.running(), kodiak.tracingSettings(), out);
            out.println("config_file=" + from.getAbsolutePath());
        }
        SettingsFile.writeAtomically(settingsFile, text.toByteArray());
    }
}
