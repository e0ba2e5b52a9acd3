package io.kodiak.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;

/**
 * The secret of {@code proxy.admin.token-file}: what a state-changing admin request from another
 * host than this one must present. Its {@link #toString()} names the file, never the secret, so
 * that no log line or exception can carry it.
 */
public final class AdminToken {
    /** The file's content is the token; a trailing newline (echo, editors) is not part of it. */
    private final byte[] secret;
    private final Path file;

    private AdminToken(byte[] secret, Path file) {
        this.secret = secret;
        this.file = file;
    }

    /**
     * Reads {@code file}; the problem, as the "expected" of a configuration problem, when it cannot
     * be read or holds no token.
     */
    static Read read(Path file) {
        byte[] content;
        try {
            content = Files.readAllBytes(file);
        } catch (IOException | SecurityException e) {
            return new Read(null, "a readable file holding the admin token (" + e.getClass().getSimpleName() + ")");
        }
        String token = new String(content, StandardCharsets.UTF_8).strip();
        if (token.isEmpty()) {
            return new Read(null, "a file holding a non-empty token (this one is empty)");
        }
        if (token.chars().anyMatch(c -> c <= ' ' || c >= 0x7f)) {
            return new Read(null, "a file holding one token of visible ASCII characters (it goes in an HTTP header)");
        }
        return new Read(new AdminToken(token.getBytes(StandardCharsets.US_ASCII), file), null);
    }

    record Read(AdminToken token, String problem) {
    }

    /**
     * Whether {@code presented} is the token, in time that does not depend on where the two first
     * differ (MessageDigest.isEqual), so that timing answers reveal nothing of the secret.
     */
    public boolean matches(byte[] presented) {
        return presented != null && MessageDigest.isEqual(secret, presented);
    }

    /** The file it was read from, absolute (relative names resolve in the working directory). */
    public Path file() {
        return file.toAbsolutePath();
    }

    @Override
    public String toString() {
        return "the token in " + file;
    }
}
