package io.kodiak.config;

import com.typesafe.config.ConfigFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Invalid settings stop start-up with one message per problem naming the key, the value and what was expected. */
class ConfigLoaderTest {

    private static ConfigException rejected(String hocon) {
        return assertThrows(ConfigException.class, () -> ConfigLoader.fromConfig(ConfigFactory.parseString(hocon)));
    }

    private static void assertProblem(ConfigException e, String key, String value, String expectedFragment) {
        assertTrue(e.problems().stream().anyMatch(p -> p.key().equals(key) && p.value().contains(value)
                        && p.expected().contains(expectedFragment)),
                "no problem for " + key + "=" + value + " in " + e.getMessage());
        assertTrue(e.getMessage().contains(key), e.getMessage());
    }

    @Test
    void defaultsLoadAndMatchTheDocumentedValues() {
        ProxyConfig config = ConfigLoader.fromConfig(ConfigFactory.empty());
        assertEquals("127.0.0.1", config.listener().host());
        assertEquals(9401, config.listener().port());
        assertEquals(IoStrategyName.SAME_THREAD, config.listener().ioStrategy());
        assertEquals(Runtime.getRuntime().availableProcessors(), config.listener().selectorThreads());
        assertEquals(-1, config.listener().maxBodySize());
        assertEquals(8192, config.listener().maxHeaderSize());
        assertEquals(0, config.listener().maxConnections(), "derived from the open-file limit at start");
        assertEquals(Duration.ofSeconds(30), config.upstream().responseTimeout());
        assertEquals(1, config.routes().size());
        assertEquals("/ProxiedServiceStub/ServiceStubServlet", config.routes().get(0).target().basePath());
        assertEquals(Duration.ofSeconds(30), config.shutdownGracePeriod());
    }

    @Test
    void shippedConfFileIsValid() {
        ProxyConfig config = ConfigLoader.load(new File("conf/proxy.conf"));
        assertEquals(9401, config.listener().port());
        assertEquals(Duration.ofSeconds(10), config.upstream().responseTimeout());
    }

    /** compare-builds.sh --conf-b would otherwise find a typo only when Kodiak refuses to start mid-run. */
    @Test
    void everyTuningVariantIsValid() throws Exception {
        File[] variants = new File("bench/throughput/tuning").listFiles((dir, name) -> name.endsWith(".conf"));
        assertTrue(variants != null && variants.length > 0, "no bench/throughput/tuning/*.conf");
        for (File variant : variants) {
            ConfigLoader.fromConfig(ConfigFactory.parseFile(variant));
        }
    }

    @Test
    void portThatIsNotANumber() {
        assertProblem(rejected("proxy.listener.port = abc"), "proxy.listener.port", "abc", "port number");
    }

    @Test
    void portOutOfRange() {
        assertProblem(rejected("proxy.listener.port = 70000"), "proxy.listener.port", "70000", "1 to 65535");
    }

    @Test
    void negativeDuration() {
        assertProblem(rejected("proxy.upstream.connect-timeout = -5s"), "proxy.upstream.connect-timeout", "-5s", "positive duration");
    }

    @Test
    void malformedDuration() {
        assertProblem(rejected("proxy.upstream.response-timeout = \"ten seconds\""),
                "proxy.upstream.response-timeout", "ten seconds", "duration");
    }

    @Test
    void unknownIoStrategy() {
        assertProblem(rejected("proxy.listener.io-strategy = turbo"), "proxy.listener.io-strategy", "turbo",
                "same-thread, worker-thread, dynamic, leader-follower");
    }

    @Test
    void unknownMemoryManager() {
        assertProblem(rejected("proxy.buffers.memory-manager = direct"), "proxy.buffers.memory-manager", "direct",
                "heap, pooled");
    }

    @Test
    void negativeClientConnectionLimit() {
        assertProblem(rejected("proxy.listener.max-connections = -5"), "proxy.listener.max-connections", "-5",
                "0 (derived from the open-file limit)");
    }

    @Test
    void malformedUpstreamUrls() {
        for (String url : new String[]{"ftp://host/x", "http://", "not a url", "https://secure:8443/", "http://h:99999/"}) {
            ConfigException e = rejected("proxy.routes = [ { prefix = \"/\", upstream = \"" + url + "\" } ]");
            assertProblem(e, "proxy.routes[0].upstream", url, "http://");
        }
    }

    @Test
    void noRoutes() {
        assertProblem(rejected("proxy.routes = []"), "proxy.routes", "[]", "at least one route");
    }

    @Test
    void routePrefixMustBeAPath() {
        assertProblem(rejected("proxy.routes = [ { prefix = \"api\", upstream = \"http://h:1/\" } ]"),
                "proxy.routes[0].prefix", "api", "starting with /");
    }

    @Test
    void aRouteRelaysUpgradesUnlessItSaysOtherwise() {
        assertTrue(ConfigLoader.fromConfig(com.typesafe.config.ConfigFactory.parseString(
                "proxy.routes = [ { prefix = \"/\", upstream = \"http://h:1/\" } ]")).routes().get(0).upgrade());
        assertFalse(ConfigLoader.fromConfig(com.typesafe.config.ConfigFactory.parseString(
                "proxy.routes = [ { prefix = \"/\", upstream = \"http://h:1/\", upgrade = false } ]")).routes().get(0).upgrade());
        assertProblem(rejected("proxy.routes = [ { prefix = \"/\", upstream = \"http://h:1/\", upgrade = maybe } ]"),
                "proxy.routes[0].upgrade", "maybe", "true or false");
    }

    @Test
    void unknownKeysAreTyposNotSilence() {
        assertProblem(rejected("proxy.listener.prot = 9000"), "proxy.listener.prot", "9000", "no such key");
        assertProblem(rejected("proxy.routes = [ { prefix = \"/\", upstream = \"http://h:1/\", preserve-hots = true } ]"),
                "proxy.routes[0].preserve-hots", "true", "route keys");
    }

    @Test
    void everyProblemIsReportedAtOnce() {
        ConfigException e = rejected("proxy.listener.port = -1\nproxy.listener.io-strategy = x\nproxy.upstream.max-connections = 0");
        assertEquals(3, e.problems().size(), e.getMessage());
    }

    @Test
    void adminPortMustDifferFromTheListener() {
        assertProblem(rejected("proxy.admin.enabled = true\nproxy.admin.port = 9401"), "proxy.admin.port", "9401",
                "other than proxy.listener.port");
    }

    @Test
    void sizesAndUnlimitedBody() {
        ProxyConfig config = ConfigLoader.fromConfig(ConfigFactory.parseString(
                "proxy.listener.max-body-size = 10m\nproxy.listener.max-header-size = 16k"));
        assertEquals(10 * 1024 * 1024, config.listener().maxBodySize());
        assertEquals(16 * 1024, config.listener().maxHeaderSize());
        assertProblem(rejected("proxy.listener.max-body-size = lots"), "proxy.listener.max-body-size", "lots", "unlimited");
    }

    @Test
    void missingOrUnparsableFileIsNamed(@TempDir Path dir) throws Exception {
        ConfigException missing = assertThrows(ConfigException.class, () -> ConfigLoader.load(dir.resolve("nope.conf").toFile()));
        assertTrue(missing.getMessage().contains("nope.conf"), missing.getMessage());
        Path broken = Files.writeString(dir.resolve("broken.conf"), "proxy { listener { port = ");
        ConfigException unparsable = assertThrows(ConfigException.class, () -> ConfigLoader.load(broken.toFile()));
        assertTrue(unparsable.getMessage().contains("broken.conf"), unparsable.getMessage());
    }
}
