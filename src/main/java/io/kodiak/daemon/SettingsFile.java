package io.kodiak.daemon;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * logs/proxy.settings: the settings in service ({@link io.kodiak.admin.SettingsReport}'s lines and
 * the file), written by the daemon at start and at each applied reload, read by the command line
 * (status, stop) when the admin listener is off or the daemon is gone.
 */
final class SettingsFile {
    private static final Logger LOG = LoggerFactory.getLogger(SettingsFile.class);
    /** Readable by the instance's other users (the command line may run as another user than the daemon). */
    private static final Set<PosixFilePermission> SHARED = PosixFilePermissions.fromString("rw-r--r--");

    private SettingsFile() {
    }

    /** Readers never see a half-written file: written beside, then renamed over. */
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
