package io.kodiak.daemon;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The pid file bin/proxy.sh wrote for this JVM. `bin/proxy.sh run` execs the JVM in place of the
 * script, so no script is left to remove it: the JVM does, on its way out, but only while the file
 * still names this process (a newer instance may have taken the same base since).
 */
final class PidFile {
    private PidFile() {
    }

    static void removeIfOurs(String path) {
        if (path == null || path.isBlank()) {
            return;
        }
        Path file = Path.of(path);
        try {
            String content = Files.readString(file, StandardCharsets.US_ASCII).trim();
            if (content.equals(Long.toString(ProcessHandle.current().pid()))) {
                Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            // Missing or unreadable: nothing of ours to remove; the script treats a stale file as stale anyway.
        }
    }
}
