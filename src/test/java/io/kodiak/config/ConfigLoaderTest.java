package io.kodiak.config;

import com.typesafe.config.ConfigFactory;
import io.kodiak.routing.Route;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import java.util.Set;

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
    void unknownClientHalfClose() {
        assertProblem(rejected("proxy.listener.client-half-close = ignore"), "proxy.listener.client-half-close", "ignore",
                "abort, answer");
    }

    @Test
    void unknownMemoryManager() {
        assertProblem(rejected("proxy.buffers.memory-manager = unpooled"), "proxy.buffers.memory-manager", "unpooled",
                "heap, exact, pooled, direct");
    }

    @Test
    void writeQueueBoundsOutsideTheirRanges() {
        assertProblem(rejected("proxy.buffers.max-queued-per-connection = 1k"), "proxy.buffers.max-queued-per-connection",
                "1k", "a size from 4k to 64m");
        assertProblem(rejected("proxy.buffers.max-queued = -1"), "proxy.buffers.max-queued", "-1",
                "0 (a quarter of the maximum heap) or a size");
        assertProblem(rejected("proxy.buffers.max-queued = lots"), "proxy.buffers.max-queued", "lots",
                "0 (a quarter of the maximum heap) or a size");
    }

    @Test
    void writeQueueBudgetDefaultsToAQuarterOfTheHeap() {
        ProxyConfig config = ConfigLoader.fromConfig(ConfigFactory.empty());
        assertEquals(256 * 1024, config.buffers().maxQueuedPerConnection());
        assertEquals(0, config.buffers().maxQueued());
        assertEquals(Runtime.getRuntime().maxMemory() / 4, config.buffers().maxQueuedResolved());
        ProxyConfig set = ConfigLoader.fromConfig(ConfigFactory.parseString("proxy.buffers.max-queued = 64m"));
        assertEquals(64L << 20, set.buffers().maxQueuedResolved());
    }

    @Test
    void negativeClientConnectionLimit() {
        assertProblem(rejected("proxy.listener.max-connections = -5"), "proxy.listener.max-connections", "-5",
                "0 (derived from the open-file limit)");
    }

    @Test
    void malformedUpstreamUrls() {
        for (String url : new String[]{"ftp://host/x", "http://", "not a url", "https://user@secure.test:8443/", "http://h:99999/"}) {
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

    /** Every key of the file lives in proxy { }: a misspelt block is a typo, not a file of defaults. */
    @Test
    void aKeyOutsideTheProxyBlockIsRefused() {
        assertProblem(rejected("prxy { listener { port = 9000 } }"), "prxy", "9000", "every key of Kodiak's lives in the proxy { } block");
        // A plain value at the top may serve as a substitution.
        assertEquals("10.0.0.1", ConfigLoader.fromConfig(ConfigFactory.parseString(
                "bind = \"10.0.0.1\"\nproxy.listener.host = ${bind}")).listener().host());
    }

    /** A prefix is matched as request paths are: unreserved characters decoded, and only what a request path may hold. */
    @Test
    void aPrefixIsCheckedAsARequestPathIs() {
        String two = "proxy.routes = [ { prefix = \"/~u/\", upstream = \"http://h:1/\" }, { prefix = \"/%7Eu/\", upstream = \"http://h:2/\" } ]";
        assertProblem(rejected(two), "proxy.routes[1].prefix", "/~u/", "a prefix not used by another route");
        assertProblem(rejected("proxy.routes = [ { prefix = \"/a%\", upstream = \"http://h:1/\" } ]"),
                "proxy.routes[0].prefix", "/a%", "a path prefix a request can match");
        assertProblem(rejected("proxy.routes = [ { prefix = \"/a\\\\b/\", upstream = \"http://h:1/\" } ]"),
                "proxy.routes[0].prefix", "/a\\b/", "a path prefix a request can match");
    }

    /** A block given as a value is named once, not as every key under it gone missing. */
    @Test
    void aBlockGivenAsAValueIsNamedAlone() {
        ConfigException proxy = rejected("proxy = 5");
        assertProblem(proxy, "proxy", "5", "a block of keys");
        assertEquals(1, proxy.problems().size(), proxy.getMessage());
        ConfigException listener = rejected("proxy.listener = 5\nproxy.upstream.tls = \"none\"");
        assertProblem(listener, "proxy.listener", "5", "a block of keys");
        assertProblem(listener, "proxy.upstream.tls", "none", "a block of keys");
        assertEquals(2, listener.problems().size(), listener.getMessage());
    }

    /** A -D override is checked as a line of the file is: a misspelt key is refused, not ignored. */
    @Test
    void aMisspeltOverrideIsRefused() {
        System.setProperty("proxy.listener.idle-timout", "5s");
        try {
            assertProblem(rejected(""), "proxy.listener.idle-timout", "5s", "no such key");
        } finally {
            System.clearProperty("proxy.listener.idle-timout");
            ConfigFactory.invalidateCaches();
        }
    }

    /** A list or block is shown on one line, without the parser's origin comments. */
    @Test
    void aStructuredValueIsShownOnOneLine() {
        ConfigException e = rejected("proxy.listener.prot = { a = 1, b = [1, 2] }");
        assertProblem(e, "proxy.listener.prot.b", "[1,2]", "no such key");
        assertTrue(e.problems().stream().noneMatch(p -> p.value().contains("\n")), e.getMessage());
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

    // ------------------------------------------------------------ upstream groups

    private static final String ORDERS_ROUTE = "proxy.routes = [ { prefix = \"/orders/\", upstream = \"http://orders/api/\" } ]\n";

    @Test
    void aMissingIncludeIsRefusedNamingTheFile(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path conf = dir.resolve("proxy.conf");
        java.nio.file.Files.writeString(conf, "include \"routes.conf\"\nproxy.listener.port = 0\n");
        ConfigException missing = assertThrows(ConfigException.class, () -> ConfigLoader.load(conf.toFile()));
        assertProblem(missing, "include", "routes.conf", "an existing file");
        java.nio.file.Files.writeString(conf, "include file(\"" + dir.resolve("gone.conf") + "\")\n");
        assertProblem(assertThrows(ConfigException.class, () -> ConfigLoader.load(conf.toFile())), "include", "gone.conf",
                "an existing file");
        // Once the file is there, it is read.
        java.nio.file.Files.writeString(conf, "include \"routes.conf\"\n");
        java.nio.file.Files.writeString(dir.resolve("routes.conf"), "proxy.listener.port = 9999\n");
        assertEquals(9999, ConfigLoader.load(conf.toFile()).listener().port());
    }

    @Test
    void aDurationPastWhatTimersCountIsRefusedNotClamped() {
        assertProblem(rejected("proxy.upstream.idle-timeout = 100000d"), "proxy.upstream.idle-timeout", "100000d", "at most 24d");
        assertProblem(rejected("proxy.upstreams.g { servers = [ \"http://127.0.0.1:1\" ], connect-timeout = 30d }\n"
                + "proxy.routes = [ { prefix = \"/\", upstream = \"http://g/\" } ]"), "proxy.upstreams.g.connect-timeout", "30d", "at most 24d");
    }

    @Test
    void theUpstreamProtocolIsReadAtEachLevelAndABadOneRefusedByName() {
        ProxyConfig config = ConfigLoader.fromConfig(ConfigFactory.parseString("""
                proxy.upstream.protocol = "h2"
                proxy.upstreams.orders { servers = [ "http://127.0.0.1:8081" ], protocol = "http/1.1" }
                proxy.upstreams.grpc { servers = [ "http://127.0.0.1:8082" ] }
                proxy.routes = [
                  { prefix = "/orders/", upstream = "http://orders/" }
                  { prefix = "/grpc/", upstream = "http://grpc/" }
                  { prefix = "/own/", upstream = "http://127.0.0.1:9000/", protocol = "http/1.1" }
                  { prefix = "/default/", upstream = "http://127.0.0.1:9001/" }
                ]
                """));
        java.util.Map<String, UpstreamProtocolName> byGroup = new java.util.HashMap<>();
        config.groups().forEach(group -> byGroup.put(group.name(), group.pool().protocol()));
        assertEquals(UpstreamProtocolName.HTTP_1_1, byGroup.get("orders"));
        assertEquals(UpstreamProtocolName.H2, byGroup.get("grpc"), "a group takes proxy.upstream.protocol");
        assertEquals(UpstreamProtocolName.HTTP_1_1, byGroup.get("127.0.0.1:9000"));
        assertEquals(UpstreamProtocolName.H2, byGroup.get("h2c://127.0.0.1:9001"), "an h2 route's own group says so in its name");

        assertProblem(rejected("proxy.upstream.protocol = h3"), "proxy.upstream.protocol", "h3", "http/1.1, h2");
        assertProblem(rejected("proxy.upstreams.g { servers = [ \"http://127.0.0.1:1\" ], protocol = spdy }\n"
                + "proxy.routes = [ { prefix = \"/\", upstream = \"http://g/\" } ]"), "proxy.upstreams.g.protocol", "spdy", "http/1.1, h2");
        assertProblem(rejected("proxy.routes = [ { prefix = \"/\", upstream = \"http://127.0.0.1:1/\", protocol = \"h2c\" } ]"),
                "proxy.routes[0].protocol", "h2c", "http/1.1, h2");
        assertProblem(rejected("proxy.upstreams.g { servers = [ \"http://127.0.0.1:1\" ] }\n"
                        + "proxy.routes = [ { prefix = \"/\", upstream = \"http://g/\", protocol = \"h2\" } ]"),
                "proxy.routes[0].protocol", "h2", "proxy.upstreams.g.protocol");
    }

    @Test
    void aGroupIsReadWithItsServersAndSettingsAndARouteNamesIt() {
        ProxyConfig config = ConfigLoader.fromConfig(ConfigFactory.parseString(ORDERS_ROUTE + """
                proxy.upstreams.orders {
                  servers = [ "http://127.0.0.1:8081", { url = "http://127.0.0.1:8082", weight = 2 },
                              { url = "http://127.0.0.1:8083", backup = true } ]
                  balance = hash
                  hash-key = "header:X-User"
                  passive { max-fails = 5, fail-timeout = 30s }
                  health-check { path = "/health", interval = 2s, timeout = 1s, rise = 2, fall = 3 }
                  retry { attempts = 3, on = ["connect-failure", "503"], budget = 25% }
                  max-connections = 50
                  response-timeout = 7s
                }
                """));
        UpstreamGroupConfig group = config.groups().stream().filter(g -> g.name().equals("orders")).findFirst().orElseThrow();
        assertEquals(3, group.servers().size());
        assertEquals(2, group.servers().get(1).weight());
        assertTrue(group.servers().get(2).backup());
        assertEquals(UpstreamGroupConfig.Balance.HASH, group.balance());
        assertEquals(new UpstreamGroupConfig.HashKey(UpstreamGroupConfig.HashKey.Kind.HEADER, "X-User"), group.hashKey());
        assertEquals(5, group.passive().maxFails());
        assertEquals(3, group.healthCheck().fall());
        assertEquals(Set.of(UpstreamGroupConfig.RetryOn.CONNECT_FAILURE, UpstreamGroupConfig.RetryOn.STATUS_503), group.retry().on());
        assertEquals(0.25, group.retry().budget(), 1e-9);
        assertEquals(50, group.pool().maxConnections());
        assertEquals(java.time.Duration.ofSeconds(7), group.pool().responseTimeout());
        assertEquals(java.time.Duration.ofSeconds(5), group.pool().connectTimeout(), "not overridden: proxy.upstream's");
        Route route = config.routes().get(0);
        assertEquals("orders", route.group());
        assertEquals("/api/", route.target().basePath());
        assertEquals("orders", route.target().authority(), "Host sent upstream is the group's name, as nginx sends");
    }

    @Test
    void aSingleUrlRouteIsAnImplicitGroupOfOneServer() {
        ProxyConfig config = ConfigLoader.fromConfig(ConfigFactory.parseString(
                "proxy.routes = [ { prefix = \"/a\", upstream = \"http://127.0.0.1:9001/x\" },"
                        + " { prefix = \"/b\", upstream = \"http://127.0.0.1:9001/y\" } ]"));
        assertEquals(1, config.groups().size(), "two routes to one origin share its group and pool");
        UpstreamGroupConfig group = config.groups().get(0);
        assertTrue(group.implicit());
        assertEquals("127.0.0.1:9001", group.name());
        assertEquals(1, group.retry().attempts());
        assertTrue(!group.passive().enabled());
    }

    @Test
    void groupMistakesAreRefusedNamingTheKey() {
        assertProblem(rejected("proxy.routes = [ { prefix = \"/\", upstream = \"http://ordres/\" } ]\n"
                + "proxy.upstreams.orders.servers = [\"http://127.0.0.1:1\"]"), "proxy.routes[0].upstream", "http://ordres/", "[orders]");
        assertProblem(rejected(ORDERS_ROUTE + "proxy.upstreams.orders.servers = []"),
                "proxy.upstreams.orders.servers", "[]", "non-empty list");
        assertProblem(rejected(ORDERS_ROUTE + "proxy.upstreams.orders.servers = [ { url = \"http://h:1\", weight = 0 } ]"),
                "proxy.upstreams.orders.servers[0].weight", "0", "from 1 to 1000");
        assertProblem(rejected(ORDERS_ROUTE + "proxy.upstreams.orders { servers = [\"http://h:1\"], hash-key = \"client-address\" }"),
                "proxy.upstreams.orders.hash-key", "client-address", "balance = \"hash\"");
        assertProblem(rejected(ORDERS_ROUTE + "proxy.upstreams.orders { servers = [\"http://h:1\"], balance = fastest }"),
                "proxy.upstreams.orders.balance", "fastest", "round-robin");
        assertProblem(rejected(ORDERS_ROUTE + "proxy.upstreams.orders { servers = [\"http://h:1/path\"] }"),
                "proxy.upstreams.orders.servers[0]", "http://h:1/path", "no path");
        assertProblem(rejected(ORDERS_ROUTE + "proxy.upstreams.orders { servers = [\"http://h:1\", \"http://h:1\"] }"),
                "proxy.upstreams.orders.servers[1]", "http://h:1", "not already listed");
        assertProblem(rejected(ORDERS_ROUTE + "proxy.upstreams.orders { servers = [ { url = \"http://h:1\", backup = true } ] }"),
                "proxy.upstreams.orders.servers", "backup", "not a backup");
        assertProblem(rejected(ORDERS_ROUTE + "proxy.upstreams.orders { servers = [\"http://h:1\"], retry { budget = 150% } }"),
                "proxy.upstreams.orders.retry.budget", "150%", "percentage");
        assertProblem(rejected(ORDERS_ROUTE + "proxy.upstreams.orders { servers = [\"http://h:1\"], retry { on = [\"500\"] } }"),
                "proxy.upstreams.orders.retry.on", "500", "connect-failure");
        assertProblem(rejected(ORDERS_ROUTE + "proxy.upstreams.orders { servers = [\"http://h:1\"], health-check { path = \"health\" } }"),
                "proxy.upstreams.orders.health-check.path", "health", "starting with /");
        assertProblem(rejected(ORDERS_ROUTE + "proxy.upstreams.orders { servers = [\"http://h:1\"], health-check { interval = 1s, timeout = 2s } }"),
                "proxy.upstreams.orders.health-check.timeout", "2s", "at most the interval");
        assertProblem(rejected(ORDERS_ROUTE + "proxy.upstreams.orders { servers = [\"http://h:1\"], weight = 2 }"),
                "proxy.upstreams.orders.weight", "2", "one of the keys");
        assertProblem(rejected("proxy.routes = [ { prefix = \"/\", upstream = \"http://orders:8080/\" } ]\n"
                + "proxy.upstreams.orders.servers = [\"http://h:1\"]"), "proxy.routes[0].upstream", "http://orders:8080/", "no port");
        StringBuilder many = new StringBuilder();
        for (int i = 1; i <= 65; i++) {
            many.append(i == 1 ? "" : ", ").append("\"http://127.0.0.1:").append(10_000 + i).append("\"");
        }
        assertProblem(rejected(ORDERS_ROUTE + "proxy.upstreams.orders.servers = [" + many + "]"),
                "proxy.upstreams.orders.servers", "65 servers", "at most 64");
        assertProblem(rejected(ORDERS_ROUTE + "proxy.upstreams.orders_1.servers = [\"http://h:1\"]"),
                "proxy.upstreams.orders_1", "", "letters, digits");
    }

    @Test
    void moreListenersShareTheListenerSettingsAndNameTheirMistakes() {
        ProxyConfig config = ConfigLoader.fromConfig(ConfigFactory.parseString(
                "proxy.listeners = [ { port = 9402 }, { host = \"0.0.0.0\", port = 9403 } ]"));
        assertEquals(List.of("proxy.listener 127.0.0.1 9401 http", "proxy.listeners[0] 127.0.0.1 9402 http",
                        "proxy.listeners[1] 0.0.0.0 9403 http"),
                config.endpoints().stream().map(e -> e.key() + " " + e.host() + " " + e.port() + " " + e.scheme()).toList());

        assertProblem(rejected("proxy.listeners = [ { host = \"127.0.0.1\" } ]"), "proxy.listeners[0].port", "(missing)", "port number");
        assertProblem(rejected("proxy.listeners = [ { port = 9402, idle-timeout = 5s } ]"),
                "proxy.listeners[0].idle-timeout", "5s", "every other setting is proxy.listener's");
        assertProblem(rejected("proxy.listeners = [ { port = 9401 } ]"), "proxy.listeners[0].port", "9401", "no other listener");
        assertProblem(rejected("proxy.listeners = [ { port = 9402 }, { port = 9402 } ]"),
                "proxy.listeners[1].port", "9402", "no other listener");
        assertProblem(rejected("proxy.listeners = [ { port = 70000 } ]"), "proxy.listeners[0].port", "70000", "1 to 65535");
        assertProblem(rejected("proxy.listeners = [ { port = 9481 } ]\nproxy.admin.enabled = true"),
                "proxy.admin.port", "9481", "proxy.listeners[0].port");
        assertProblem(rejected("proxy.listeners = [ { port = 9443, tls { certificate = \"/nonexistent.pem\", key = \"/nonexistent.key\" } } ]"),
                "proxy.listeners[0].tls.certificate", "/nonexistent.pem", "readable PEM file");
        assertProblem(rejected("proxy.listeners = { port = 9443 }"), "proxy.listeners", "9443", "a list of");
    }

    @Test
    void aGroupsTlsIsCheckedUnderItsOwnKey() {
        assertProblem(rejected(ORDERS_ROUTE + "proxy.upstreams.orders { servers = [\"https://h:1\"], tls { trust = \"/nonexistent-ca.pem\" } }"),
                "proxy.upstreams.orders.tls.trust", "/nonexistent-ca.pem", "readable PEM file");
        assertProblem(rejected(ORDERS_ROUTE + "proxy.upstreams.orders { servers = [\"https://h:1\"], tls { verify = false } }"),
                "proxy.upstreams.orders.tls.verify", "false", "one of the keys");
        assertProblem(rejected(ORDERS_ROUTE + "proxy.upstreams.orders { servers = [\"https://h:1\"], tls { verify-hostname = maybe } }"),
                "proxy.upstreams.orders.tls.verify-hostname", "maybe", "true or false");
        ProxyConfig config = ConfigLoader.fromConfig(ConfigFactory.parseString(ORDERS_ROUTE
                + "proxy.upstreams.orders { servers = [\"https://h:1\"], tls { verify-hostname = false, server-name = \"api.internal\" } }"));
        UpstreamGroupConfig orders = config.groups().stream().filter(g -> g.name().equals("orders")).findFirst().orElseThrow();
        assertFalse(orders.pool().tls().verifyHostname());
        assertEquals("api.internal", orders.pool().tls().serverName());
        assertEquals(null, orders.pool().tls().trust(), "trust stays proxy.upstream.tls's (the system's)");
    }

    @Test
    void tracingDefaultsAreOffAsDocumented() {
        ProxyConfig.Tracing tracing = ConfigLoader.fromConfig(ConfigFactory.empty()).tracing();
        assertEquals(ProxyConfig.Tracing.OFF, tracing);
        assertFalse(tracing.enabled());
        assertEquals(0.01, tracing.sampler());
        assertEquals("kodiak", tracing.serviceName());
        assertEquals("http://127.0.0.1:4318/v1/traces", tracing.endpoint().toString());
        assertEquals(2048, tracing.maxQueuedSpans());
        ProxyConfig on = ConfigLoader.fromConfig(ConfigFactory.parseString(
                "proxy.tracing { enabled = true, sampler = 1, otlp.endpoint = \"https://collector.internal/v1/traces\" }"));
        assertTrue(on.tracing().enabled());
        assertEquals(1.0, on.tracing().sampler());
        assertEquals("https://collector.internal/v1/traces", on.tracing().endpoint().toString());
    }

    @Test
    void badTracingValuesAreRefusedNamingTheKey() {
        String share = "a share of new traces from 0 to 1";
        assertProblem(rejected("proxy.tracing.sampler = 1.5"), "proxy.tracing.sampler", "1.5", share);
        assertProblem(rejected("proxy.tracing.sampler = -0.1"), "proxy.tracing.sampler", "-0.1", share);
        assertProblem(rejected("proxy.tracing.sampler = often"), "proxy.tracing.sampler", "often", share);
        assertProblem(rejected("proxy.tracing.sampler = NaN"), "proxy.tracing.sampler", "NaN", share);
        String url = "an http:// or https:// URL with a host";
        for (String endpoint : List.of("collector:4318/v1/traces", "ftp://collector/v1/traces", "http:///v1/traces",
                "http://user@collector/v1/traces", "http://collector/v1 traces", "")) {
            assertProblem(rejected("proxy.tracing.otlp.endpoint = \"" + endpoint + "\""), "proxy.tracing.otlp.endpoint",
                    endpoint, url);
        }
        // Checked with tracing off too: turning it on at the next restart must not find a bad value then.
        assertProblem(rejected("proxy.tracing { enabled = false, otlp.endpoint = \"nowhere\" }"),
                "proxy.tracing.otlp.endpoint", "nowhere", url);
        assertProblem(rejected("proxy.tracing.enabled = sometimes"), "proxy.tracing.enabled", "sometimes", "true or false");
        assertProblem(rejected("proxy.tracing.service-name = \" \""), "proxy.tracing.service-name", " ", "non-empty");
        assertProblem(rejected("proxy.tracing.max-queued-spans = 0"), "proxy.tracing.max-queued-spans", "0", "1 to 1000000");
        assertProblem(rejected("proxy.tracing.otlp.endpiont = \"http://c/v1/traces\""), "proxy.tracing.otlp.endpiont",
                "http://c/v1/traces", "no such key");
    }
}
