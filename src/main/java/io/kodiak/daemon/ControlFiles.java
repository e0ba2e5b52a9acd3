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
 * Kodiak answers in {@code proxy.reload-result.<id>} (the id, applied, refused or failed, the
 * generation, then one line per change or problem), which the script reads and removes, and in
 * {@code proxy.reload-result} (the latest answer, whoever asked). A SIGHUP without a request
 * (kill -HUP, systemd) reloads the file in service and answers in the latter only. The names are
 * this class's and bin/proxy.sh's contract.
 */
final class ControlFiles {
    private static final Logger LOG = LoggerFactory.getLogger(ControlFiles.class);
    /** Ids bin/proxy.sh makes (pid and time); anything else is not used in a file name. */
    private static final java.util.regex.Pattern ID = java.util.regex.Pattern.compile("[A-Za-z0-9-]{1,64}");
    /** Readable by the instance's other users (the script may run as another user than the daemon). */
    private static final java.util.Set<java.nio.file.attribute.PosixFilePermission> SHARED =
            java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--");

    /**
     * A request: {@code file} null for the file in service; {@code problem} non-null when a
     * request was there but could not be read (the reload is then refused, saying so).
     */
    record Request(String id, File file, String problem) {
        static final Request SIGNAL = new Request(null, null, null);
    }

    private final Path request;
    private final Path latest;

    private ControlFiles(Path request, Path latest) {
        this.request = request;
        this.latest = latest;
    }

    /** Beside the pid file; null when there is none (an embedded or test run). */
    static ControlFiles besidePidFile(String pidFile) {
        if (pidFile == null || pidFile.isBlank()) {
            return null;
        }
        Path pid = Path.of(pidFile);
        return new ControlFiles(pid.resolveSibling("proxy.reload"), pid.resolveSibling("proxy.reload-result"));
    }

    /**
     * The pending request, taken by renaming it first: a request written while this one is read
     * waits for its own signal instead of being deleted unread. No request: a bare signal.
     */
    Request take() {
        Path taken = request.resolveSibling(request.getFileName() + ".taken");
        try {
            Files.move(request, taken, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (java.nio.file.NoSuchFileException none) {
            return Request.SIGNAL;
        } catch (IOException e) {
            return new Request(null, null, "cannot take the reload request " + request + ": " + e);
        }
        try {
            List<String> lines = Files.readAllLines(taken, StandardCharsets.UTF_8);
            Files.deleteIfExists(taken);
            String id = lines.isEmpty() ? "" : lines.get(0).trim();
            File file = lines.size() > 1 && !lines.get(1).isBlank() ? new File(lines.get(1).trim()) : null;
            return new Request(ID.matcher(id).matches() ? id : null, file, null);
        } catch (IOException e) {
            return new Request(null, null, "cannot read the reload request " + taken + ": " + e);
        }
    }

    void answer(Request to, Reloader.Outcome outcome) {
        List<String> lines = new ArrayList<>();
        lines.add("id=" + (to.id() == null ? "signal" : to.id()));
        lines.add("result=" + outcome.result().name().toLowerCase(java.util.Locale.ROOT));
        lines.add("generation=" + outcome.generation());
        lines.add("config_file=" + (outcome.file() == null ? "" : outcome.file().getAbsolutePath()));
        outcome.lines().forEach(line -> lines.add("line=" + line));
        byte[] content = (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8);
        if (to.id() != null) {
            writeAtomically(latest.resolveSibling(latest.getFileName() + "." + to.id()), content);
        }
        writeAtomically(latest, content);
    }

    /** Readers never see a half-written file: written beside, then renamed over; readable by the instance's users. */
    static void writeAtomically(Path file, byte[] content) {
        try {
            Path temporary = Files.createTempFile(file.toAbsolutePath().getParent(), ".kodiak", ".tmp");
            Files.write(temporary, content);
            try {
                Files.setPosixFilePermissions(temporary, SHARED);
            } catch (UnsupportedOperationException notPosix) {
                // Not a POSIX file system: its default permissions apply.
            }
            Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            LOG.warn("cannot write {}: {}", file, e.getMessage());
        }
    }
}
