package io.kodiak.config;

import com.typesafe.config.ConfigFactory;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** proxy.resolver, a server's resolve and a group's discovery: read, and refused naming the key when wrong. */
class DiscoveryConfigTest {
    private static final String ROUTE = "proxy.routes = [ { prefix = \"/\", upstream = \"http://orders/\" } ]\n";

    private static ProxyConfig load(String hocon) {
        return ConfigLoader.fromConfig(ConfigFactory.parseString(hocon));
    }

    private static void refused(String hocon, String key, String value, String expected) {
        ConfigException e = assertThrows(ConfigException.class, () -> load(hocon));
        assertTrue(e.problems().stream().anyMatch(p -> p.key().equals(key) && p.value().contains(value)
                && p.expected().contains(expected)), "no problem for " + key + " = " + value + " in " + e.getMessage());
    }

    @Test
    void resolverDefaultsToTheSystemsServers() {
        ProxyConfig.Resolver resolver = load("").resolver();
        assertEquals(List.of(), resolver.servers());
        assertEquals(Duration.ofSeconds(30), resolver.valid());
        assertEquals(Duration.ofSeconds(2), resolver.timeout());
    }

    @Test
    void resolverServersAreAddressAndPort() {
        ProxyConfig.Resolver resolver = load("proxy.resolver { servers = [\"127.0.0.53:53\", \"[::1]:5353\"], valid = 5s, timeout = 300ms }")
                .resolver();
        assertEquals(List.of(new InetSocketAddress("127.0.0.53", 53), new InetSocketAddress("::1", 5353)), resolver.servers());
        assertEquals(Duration.ofSeconds(5), resolver.valid());
        assertEquals(Duration.ofMillis(300), resolver.timeout());
    }

    @Test
    void badResolverSettingsAreRefusedNamingTheKey() {
        refused("proxy.resolver.servers = [\"dns.internal:53\"]", "proxy.resolver.servers[0]", "dns.internal:53", "IP address and port");
        refused("proxy.resolver.servers = [\"127.0.0.1\"]", "proxy.resolver.servers[0]", "127.0.0.1", "IP address and port");
        refused("proxy.resolver.servers = [\"127.0.0.1:70000\"]", "proxy.resolver.servers[0]", "70000", "IP address and port");
        refused("proxy.resolver.servers = [\"::1:53\"]", "proxy.resolver.servers[0]", "::1:53", "[::1]:53");
        refused("proxy.resolver.servers = \"127.0.0.1:53\"", "proxy.resolver.servers", "127.0.0.1:53", "a list of DNS servers");
        refused("proxy.resolver.valid = 0s", "proxy.resolver.valid", "0s", "from 1s to 1d");
        refused("proxy.resolver.valid = 2d", "proxy.resolver.valid", "2d", "from 1s to 1d");
        refused("proxy.resolver.timeout = 10ms", "proxy.resolver.timeout", "10ms", "from 100ms to 30s");
        refused("proxy.resolver.timeout = 1m", "proxy.resolver.timeout", "1m", "from 100ms to 30s");
        refused("proxy.resolver.retries = 3", "proxy.resolver.retries", "3", "no such key");
    }

    @Test
    void aResolvedServerKeepsItsNameForLater() {
        UpstreamGroupConfig group = load(ROUTE + "proxy.upstreams.orders.servers = [ { url = \"http://orders.internal:8080\", resolve = true },"
                + " \"http://127.0.0.1:8081\" ]").groups().get(0);
        assertTrue(group.discovers());
        assertTrue(group.servers().get(0).resolve());
        assertEquals("orders.internal", group.servers().get(0).host());
        assertFalse(group.servers().get(1).resolve());
        assertNull(group.srv());
    }

    @Test
    void badResolveIsRefusedNamingTheKey() {
        refused(ROUTE + "proxy.upstreams.orders.servers = [ { url = \"http://orders.internal:8080\", resolve = yes } ]",
                "proxy.upstreams.orders.servers[0].resolve", "yes", "true or false");
        refused(ROUTE + "proxy.upstreams.orders.servers = [ { url = \"http://10.0.0.1:8080\", resolve = true } ]",
                "proxy.upstreams.orders.servers[0].resolve", "true", "given by address");
    }

    @Test
    void aDiscoveryGroupNamesItsSrvRecords() {
        UpstreamGroupConfig group = load(ROUTE + "proxy.upstreams.orders.discovery { srv = \"_http._tcp.orders.internal.\" }")
                .groups().get(0);
        assertEquals("_http._tcp.orders.internal", group.srv());
        assertEquals(List.of(), group.servers());
        assertTrue(group.discovers());
    }

    @Test
    void badDiscoveryIsRefusedNamingTheKey() {
        refused(ROUTE + "proxy.upstreams.orders.discovery { srv = \"not a name\" }", "proxy.upstreams.orders.discovery.srv",
                "not a name", "SRV record's DNS name");
        refused(ROUTE + "proxy.upstreams.orders.discovery { srv = \"_http._tcp.orders.internal\" }\n"
                        + "proxy.upstreams.orders.servers = [\"http://127.0.0.1:1\"]",
                "proxy.upstreams.orders.servers", "127.0.0.1", "no servers list in a group with discovery");
        refused(ROUTE + "proxy.upstreams.orders.discovery { }", "proxy.upstreams.orders.discovery.srv", "(missing)", "SRV");
        refused(ROUTE + "proxy.upstreams.orders.discovery { srv = \"_http._tcp.x.internal\", port = 80 }",
                "proxy.upstreams.orders.discovery.port", "80", "one of the keys");
        refused(ROUTE + "proxy.upstreams.orders.discovery = \"_http._tcp.x.internal\"", "proxy.upstreams.orders.discovery",
                "_http", "an object");
    }
}
