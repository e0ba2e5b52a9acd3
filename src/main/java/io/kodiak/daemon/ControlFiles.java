package io.kodiak.daemon;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * How bin/proxy.sh asks a running Kodiak to reload and learns the outcome: it writes a request
 * ({@code proxy.reload}: an id, then the configuration file) beside the pid file and sends SIGHUP;
 * Kodiak answers in {@code proxy.reload-result} (the id, applied or refused, the generation, then
 * one line per change or problem). A SIGHUP without a request (kill -HUP, systemd) reloads the
 * current file and answers all the same.
 */
final class ControlFiles {
    private static final Logger LOG = LoggerFactory.getLogger(ControlFiles.class);

    /** A request read from the request file: {@code file} null for the current one. */
    record Request(String id, File file) {
    }

    private final Path request;
    private final Path result;

    private ControlFiles(Path request, Path result) {
        this.request = request;
        this.result = result;
    }

    /** Beside the pid file; null when there is none (an embedded or test run). */
    static ControlFiles besidePidFile(String pidFile) {
        if (pidFile == null || pidFile.isBlank()) {
            return null;
        }
        Path pid = Path.of(pidFile);
        return new ControlFiles(pid.resolveSibling("proxy.reload"), pid.resolveSibling("proxy.reload-result"));
    }

    /** The pending request, removed as it is taken; a signal without one reloads the current file. */
    Request take() {
        try {
            List<String> lines = Files.readAllLines(request, StandardCharsets.UTF_8);
            Files.deleteIfExists(request);
            String id = lines.isEmpty() ? "signal" : lines.get(0).trim();
            File file = lines.size() > 1 && !lines.get(1).isBlank() ? new File(lines.get(1).trim()) : null;
            return new Request(id, file);
        } catch (IOException e) {
            return new Request("signal", null);
        }
    }

    void answer(String id, Reloader.Outcome outcome) {
        List<String> lines = new ArrayList<>();
        lines.add("id=" + id);
        lines.add("result=" + (outcome.applied() ? "applied" : "refused"));
        lines.add("generation=" + outcome.generation());
        lines.add("config_file=" + outcome.file().getAbsolutePath());
        outcome.lines().forEach(line -> lines.add("line=" + line));
        writeAtomically(result, (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
    }

    /** Readers never see a half-written file: written beside, then renamed over. */
    static void writeAtomically(Path file, byte[] content) {
        try {
            Path temporary = Files.createTempFile(file.toAbsolutePath().getParent(), ".kodiak", ".tmp");
            Files.write(temporary, content);
            Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            LOG.warn("cannot write {}: {}", file, e.getMessage());
        }
    }
}
