package io.kodiak.admin;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.typesafe.config.ConfigFactory;
import io.kodiak.config.AdminToken;
import io.kodiak.config.ConfigLoader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Who may change state through the admin listener, with a peer standing in for another host. */
class ReloadGuardTest {
    private static final String SECRET = "Zq9-token-4a7c";

    @TempDir
    Path dir;
    private final Logger log = (Logger) LoggerFactory.getLogger(ReloadGuard.class);
    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
    private InetAddress remote;
    private InetAddress loopback;

    @BeforeEach
    void capture() throws Exception {
        lines.start();
        log.addAppender(lines);
        remote = InetAddress.getByName("192.0.2.7");
        loopback = InetAddress.getByName("127.0.0.1");
    }

    @AfterEach
    void release() {
        log.detachAppender(lines);
    }

    private AdminToken token() throws Exception {
        Path file = Files.writeString(dir.resolve("admin.token"), SECRET + "\n");
        return ConfigLoader.fromConfig(ConfigFactory.parseString("proxy.listener.port = 0\nproxy.admin.port = 0\n"
                + "proxy.admin.token-file = \"" + file + "\"\n")).admin().token();
    }

    private List<String> warnings() {
        return lines.list.stream().filter(e -> e.getLevel() == Level.WARN).map(ILoggingEvent::getFormattedMessage).toList();
    }

    @Test
    void aLoopbackPeerNeedsNoToken() throws Exception {
        AdminToken token = token();
        assertNull(new ReloadGuard(() -> null).refusal("POST /reload", loopback, null));
        assertNull(new ReloadGuard(() -> token).refusal("POST /reload", InetAddress.getByName("127.0.0.2"), null),
                "all of 127/8 is this host");
        assertNull(new ReloadGuard(() -> token).refusal("POST /reload", InetAddress.getByName("::1"), null));
        assertEquals(List.of(), warnings());
    }

    @Test
    void anotherHostIsRefusedWithoutATokenAndLoggedOnce() throws Exception {
        ReloadGuard guard = new ReloadGuard(() -> null, InetAddress::isLoopbackAddress);

        String refusal = guard.refusal("POST /reload", remote, "Bearer " + SECRET);

        assertNotNull(refusal);
        assertTrue(refusal.contains("no proxy.admin.token-file"), refusal);
        assertEquals(List.of("admin: POST /reload refused from 192.0.2.7: " + refusal), warnings());
    }

    @Test
    void anotherHostWithTheTokenIsAcceptedAndWithoutOrWithAWrongOneRefused() throws Exception {
        AdminToken token = token();
        ReloadGuard guard = new ReloadGuard(() -> token, InetAddress::isLoopbackAddress);

        assertNull(guard.refusal("POST /reload", remote, "Bearer " + SECRET));
        assertNull(guard.refusal("POST /reload", remote, "bearer " + SECRET), "the scheme is case-insensitive (RFC 9110)");
        assertEquals(List.of(), warnings());

        assertNotNull(guard.refusal("POST /reload", remote, null));
        assertNotNull(guard.refusal("POST /reload", remote, "Basic " + SECRET));
        assertNotNull(guard.refusal("POST /reload", remote, "Bearer " + SECRET.substring(1)));
        assertNotNull(guard.refusal("POST /reload", remote, "Bearer " + SECRET + "x"));
        List<String> refused = warnings();
        assertEquals(4, refused.size(), refused.toString());
        refused.forEach(line -> {
            assertTrue(line.contains("from 192.0.2.7"), line);
            assertFalse(line.contains(SECRET.substring(1)), "the log never carries what was presented: " + line);
        });
    }

    @Test
    void whatCountsAsThisHostIsTheGuardsChoice() throws Exception {
        AdminToken token = token();
        ReloadGuard nobodyLocal = new ReloadGuard(() -> token, peer -> false);

        assertNotNull(nobodyLocal.refusal("POST /reload", loopback, null));
        assertNull(nobodyLocal.refusal("POST /reload", loopback, "Bearer " + SECRET));
        assertTrue(warnings().get(0).contains("refused from 127.0.0.1"), warnings().toString());
    }

    /** Refusals cost a caller nothing: the log takes at most ten of them in ten seconds, and counts the rest. */
    @Test
    void aFloodOfRefusalsIsLoggedAsAFewLines() throws Exception {
        AdminToken token = token();
        ReloadGuard guard = new ReloadGuard(() -> token, address -> false);
        for (int i = 0; i < 25; i++) {
            assertNotNull(guard.refusal("POST /reload", remote, "Bearer wrong-" + i));
        }
        assertEquals(10, warnings().size(), warnings().toString());
        assertFalse(warnings().stream().anyMatch(line -> line.contains("wrong-")), "what a caller presented is never logged");
    }

    /** Naming a file takes the token even from a peer that counts as this host. */
    @Test
    void namingAFileTakesTheTokenEvenFromLoopback() throws Exception {
        AdminToken token = token();
        ReloadGuard guard = new ReloadGuard(() -> token, address -> true);
        assertNull(guard.refusal("POST /reload", loopback, null));
        assertNotNull(guard.refusalWithoutToken("POST /reload with config_file", loopback, null));
        assertNull(guard.refusalWithoutToken("POST /reload with config_file", loopback, "Bearer " + SECRET));
        ReloadGuard noToken = new ReloadGuard(() -> null, address -> true);
        assertTrue(noToken.refusalWithoutToken("POST /reload with config_file", loopback, "Bearer " + SECRET)
                .contains("no proxy.admin.token-file"));
    }
}
