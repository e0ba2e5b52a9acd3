package io.kodiak.config;

import com.typesafe.config.ConfigFactory;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** proxy.listener.proxy-protocol-trusted and each listeners entry's: address blocks, read and checked. */
class ProxyProtocolTrustedConfigTest {
    private static final String ROUTE = "proxy.routes = [ { prefix = \"/\", upstream = \"http://127.0.0.1:1\" } ]\n";

    private static ProxyConfig load(String hocon) {
        return ConfigLoader.fromConfig(ConfigFactory.parseString(ROUTE + hocon));
    }

    private static boolean holds(String block, String address) throws Exception {
        return AddressBlock.parse(block).contains(InetAddress.getByName(address));
    }

    @Test
    void blocksHoldTheirAddressesAndNoOthers() throws Exception {
        assertTrue(holds("10.0.0.0/8", "10.255.1.2"));
        assertFalse(holds("10.0.0.0/8", "11.0.0.1"));
        assertTrue(holds("127.0.0.1", "127.0.0.1"));
        assertFalse(holds("127.0.0.1", "127.0.0.2"));
        assertTrue(holds("192.168.4.0/22", "192.168.7.255"));
        assertFalse(holds("192.168.4.0/22", "192.168.8.0"));
        assertTrue(holds("0.0.0.0/0", "203.0.113.7"));
        assertFalse(holds("0.0.0.0/0", "::1"), "an IPv4 block holds no IPv6 address");
        assertTrue(holds("::1/128", "::1"));
        assertTrue(holds("2001:db8::/32", "2001:db8:ffff::1"));
        assertFalse(holds("2001:db8::/32", "2001:db9::1"));
        assertFalse(holds("::/0", "10.0.0.1"), "an IPv6 block holds no IPv4 address");
        // An IPv4-mapped IPv6 peer is read as IPv4 by Java.
        assertTrue(holds("10.0.0.0/8", "::ffff:10.0.0.1"));
    }

    @Test
    void whatIsNoBlockIsRefusedNamingTheEntryItsValueAndTheExpectation() {
        for (String bad : new String[]{"10.0.0.0/33", "::1/129", "10.0.0.1/8", "localhost", "example.com", "10.0.0/8",
                "10.0.0.0/", "10.0.0.0/-1", "fe80::1%eth0", "256.0.0.1", ""}) {
            ConfigException e = assertThrows(ConfigException.class,
                    () -> load("proxy.listener.proxy-protocol-trusted = [\"127.0.0.1\", \"" + bad + "\"]\n"), bad);
            assertTrue(e.problems().stream().anyMatch(p -> p.key().equals("proxy.listener.proxy-protocol-trusted[1]")
                    && p.value().contains(bad) && p.expected().contains("address/prefix-length")), bad + ": " + e.getMessage());
            assertNull(AddressBlock.parse(bad), bad);
        }
        ConfigException notAList = assertThrows(ConfigException.class,
                () -> load("proxy.listeners = [ { port = 0, proxy-protocol = true, proxy-protocol-trusted = \"10.0.0.0/8\" } ]\n"));
        assertTrue(notAList.getMessage().contains("proxy.listeners[0].proxy-protocol-trusted"), notAList.getMessage());
        ConfigException number = assertThrows(ConfigException.class,
                () -> load("proxy.listeners = [ { port = 0, proxy-protocol-trusted = [10] } ]\n"));
        assertTrue(number.getMessage().contains("proxy.listeners[0].proxy-protocol-trusted[0]"), number.getMessage());
    }

    @Test
    void entriesInheritTheListenersListUnlessTheySetTheirOwn() {
        ProxyConfig config = load("proxy.listener.proxy-protocol-trusted = [\"10.0.0.0/8\"]\n"
                + "proxy.listeners = [ { port = 0 }, { port = 0, proxy-protocol-trusted = [\"::1/128\", \"127.0.0.1\"] },"
                + " { port = 0, proxy-protocol-trusted = [] } ]\n");
        List<ProxyConfig.Endpoint> endpoints = config.endpoints();
        assertEquals("[10.0.0.0/8]", endpoints.get(0).proxyProtocolTrusted().toString());
        assertEquals("[10.0.0.0/8]", endpoints.get(1).proxyProtocolTrusted().toString());
        assertEquals("[0:0:0:0:0:0:0:1/128, 127.0.0.1/32]", endpoints.get(2).proxyProtocolTrusted().toString());
        assertEquals(List.of(), endpoints.get(3).proxyProtocolTrusted());
        assertEquals(List.of(), load("").listener().proxyProtocolTrusted(), "default: every peer");
    }

    @Test
    void anUntrustingProxyProtocolListenerOffLoopbackIsWarnedAbout() {
        assertEquals(List.of(), load("proxy.listener.proxy-protocol = true\n").warnings(), "loopback: no warning");
        List<String> warnings = load("proxy.listener.proxy-protocol = true\nproxy.listener.host = \"0.0.0.0\"\n").warnings();
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).contains("proxy.listener") && warnings.get(0).contains("proxy-protocol-trusted"), warnings.get(0));
        assertEquals(List.of(), load("proxy.listener.proxy-protocol = true\nproxy.listener.host = \"0.0.0.0\"\n"
                + "proxy.listener.proxy-protocol-trusted = [\"10.0.0.0/8\"]\n").warnings());
    }
}
