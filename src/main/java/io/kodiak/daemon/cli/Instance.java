package io.kodiak.daemon.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * One Kodiak instance: its base directory (PROXY_BASE) and what lives there, the pid file, logs/
 * and the recorded settings, and whether the process the pid file names is ours. A pid file is
 * trusted only when its process carries this base's marker as one whole argument, so a stale
 * file that now names another process is never mistaken for Kodiak, nor signalled.
 */
final class Instance {
    final Path base;
    final Path pidFile;
    final Path logs;
    final Path consoleLog;
    /** Written by the daemon at start and at each applied reload (io.kodiak.daemon.SettingsFile). */
    final Path settingsFile;
    /** The argument that marks a JVM as this instance's daemon. */
    final String marker;

    Instance(Path base) {
        this.base = base.toAbsolutePath().normalize();
        this.pidFile = this.base.resolve("proxy.pid");
        this.logs = this.base.resolve("logs");
        this.consoleLog = logs.resolve("console.log");
        this.settingsFile = logs.resolve("proxy.settings");
        this.marker = "-Dkodiak.daemon=proxy:" + this.base;
    }

    /** The pid of this instance's live daemon, if the pid file names one. */
    Optional<Long> pid() {
        Optional<Long> recorded = recordedPid();
        return recorded.filter(this::isOurs);
    }

    /** What the pid file says, whether or not that process is ours. */
    Optional<Long> recordedPid() {
        try {
            String digits = Files.readString(pidFile, StandardCharsets.US_ASCII).replaceAll("[^0-9]", "");
            return digits.isEmpty() || digits.length() > 18 ? Optional.empty() : Optional.of(Long.parseLong(digits));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private boolean isOurs(long pid) {
        byte[] commandLine;
        try {
            commandLine = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
        } catch (IOException e) {
            return false;
        }
        for (String argument : new String(commandLine, StandardCharsets.UTF_8).split("\0")) {
            if (argument.equals(marker)) {
                return true;
            }
        }
        return false;
    }

    /** The settings the running daemon recorded; empty when it recorded none. */
    Optional<RecordedSettings> recordedSettings() {
        try {
            return Optional.of(RecordedSettings.parse(Files.readAllLines(settingsFile, StandardCharsets.UTF_8)));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    void writePid(long pid) throws IOException {
        Files.writeString(pidFile, pid + "\n", StandardCharsets.US_ASCII);
    }

    void forget() {
        try {
            Files.deleteIfExists(pidFile);
            Files.deleteIfExists(settingsFile);
        } catch (IOException e) {
            // Left behind: the next start finds them stale and replaces them.
        }
    }
}
