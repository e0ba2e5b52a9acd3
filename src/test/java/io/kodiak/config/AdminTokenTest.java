package io.kodiak.config;

import com.typesafe.config.ConfigFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** proxy.admin.token-file: read at load, refused naming key, value and expectation, never shown. */
class AdminTokenTest {
    @TempDir
    Path dir;

    private static ProxyConfig load(String hocon) {
        return ConfigLoader.fromConfig(ConfigFactory.parseString("proxy.listener.port = 0\nproxy.admin.port = 0\n" + hocon));
    }

    private static String quoted(Path file) {
        return "\"" + file + "\"";
    }

    @Test
    void noFileMeansNoToken() {
        assertNull(load("").admin().token());
    }

    @Test
    void theFilesLineIsTheTokenWithoutItsNewline() throws Exception {
        Path file = Files.writeString(dir.resolve("admin.token"), "s3cret-Token\n");
        AdminToken token = load("proxy.admin.token-file = " + quoted(file)).admin().token();

        assertTrue(token.matches("s3cret-Token".getBytes(StandardCharsets.US_ASCII)));
        assertFalse(token.matches("s3cret-Token\n".getBytes(StandardCharsets.US_ASCII)));
        assertFalse(token.matches("s3cret-Tokem".getBytes(StandardCharsets.US_ASCII)));
        assertFalse(token.matches("s3cret".getBytes(StandardCharsets.US_ASCII)), "a prefix is not the token");
        assertFalse(token.matches(new byte[0]));
        assertFalse(token.matches(null));
        assertFalse(token.toString().contains("s3cret"), token.toString());
        assertFalse(load("proxy.admin.token-file = " + quoted(file)).admin().toString().contains("s3cret"));
    }

    @Test
    void anEmptyOrMissingOrUnreadableFileIsRefusedNamingKeyValueAndExpectation() throws Exception {
        Path empty = Files.writeString(dir.resolve("empty.token"), "  \n");
        ConfigException e = assertThrows(ConfigException.class, () -> load("proxy.admin.token-file = " + quoted(empty)));
        assertTrue(e.getMessage().contains("proxy.admin.token-file = " + quoted(empty) + ": expected a file holding a non-empty token"),
                e.getMessage());

        Path missing = dir.resolve("missing.token");
        e = assertThrows(ConfigException.class, () -> load("proxy.admin.token-file = " + quoted(missing)));
        assertTrue(e.getMessage().contains("proxy.admin.token-file = " + quoted(missing) + ": expected a readable file holding the admin token"),
                e.getMessage());

        Path spaced = Files.writeString(dir.resolve("spaced.token"), "two words\n");
        e = assertThrows(ConfigException.class, () -> load("proxy.admin.token-file = " + quoted(spaced)));
        assertTrue(e.getMessage().contains("proxy.admin.token-file"), e.getMessage());
        assertFalse(e.getMessage().contains("two words"), "the refusal does not show the file's content: " + e.getMessage());
    }
}
