package io.kodiak.discovery;

import com.typesafe.config.ConfigFactory;
import io.kodiak.config.ConfigLoader;
import io.kodiak.config.UpstreamGroupConfig;
import io.kodiak.upstream.ServerDirectory;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A group's servers from its names' answers, without DNS: what each answer becomes, and when the lookups come. */
class GroupServersTest {
    private final Map<DnsName, WatchedName> names = new HashMap<>();

    private static UpstreamGroupConfig group(String body) {
        return ConfigLoader.fromConfig(ConfigFactory.parseString("proxy.upstreams.g { " + body + " }\n"
                + "proxy.routes = [ { prefix = \"/\", upstream = \"http://g/\" } ]")).groups().get(0);
    }

    private void answer(DnsName.Kind kind, String name, Endpoint... endpoints) {
        WatchedName watched = names.computeIfAbsent(new DnsName(kind, name), WatchedName::new);
        watched.resolved(new Answer(List.of(endpoints), 30), Instant.now());
    }

    private ServerDirectory.Found found(UpstreamGroupConfig group) {
        return GroupServers.of(group, names::get);
    }

    @Test
    void eachAddressIsAServerWithTheConfiguredPortWeightAndName() {
        UpstreamGroupConfig group = group("servers = [ { url = \"https://orders.test:8443\", resolve = true, weight = 3 },"
                + " \"http://127.0.0.1:9000\" ]");
        answer(DnsName.Kind.ADDRESSES, "orders.test", Endpoint.address("10.0.0.2", "orders.test"),
                Endpoint.address("fd00::1", "orders.test"), Endpoint.address("10.0.0.1", "orders.test"));
        List<UpstreamGroupConfig.Server> servers = found(group).settings().servers();
        assertEquals(List.of("10.0.0.1:8443", "10.0.0.2:8443", "[fd00::1]:8443", "127.0.0.1:9000"),
                servers.stream().map(UpstreamGroupConfig.Server::authority).toList());
        UpstreamGroupConfig.Server first = servers.get(0);
        assertEquals(3, first.weight());
        assertTrue(first.tls());
        assertEquals("orders.test", first.tlsHost(), "TLS verifies the name, not the address");
        assertEquals("https://[fd00::1]:8443", servers.get(2).url());
        assertNull(found(group).unavailable());
    }

    @Test
    void equalAnswersGiveAnEqualGroupWhateverTheRecordOrder() {
        UpstreamGroupConfig group = group("servers = [ { url = \"http://orders.test:80\", resolve = true } ]");
        answer(DnsName.Kind.ADDRESSES, "orders.test", Endpoint.address("10.0.0.1", "orders.test"), Endpoint.address("10.0.0.2", "orders.test"));
        UpstreamGroupConfig before = found(group).settings();
        answer(DnsName.Kind.ADDRESSES, "orders.test", Endpoint.address("10.0.0.2", "orders.test"), Endpoint.address("10.0.0.1", "orders.test"));
        assertEquals(before, found(group).settings(), "the build keeps a group whose settings are equal");
    }

    @Test
    void aNameNeverResolvedLeavesTheGroupWithoutServersAndSaysWhy() {
        UpstreamGroupConfig group = group("servers = [ { url = \"http://orders.test:80\", resolve = true } ]");
        ServerDirectory.Found unknown = found(group);
        assertEquals(List.of(), unknown.settings().servers());
        assertEquals("orders.test has not resolved yet", unknown.unavailable());
        names.computeIfAbsent(new DnsName(DnsName.Kind.ADDRESSES, "orders.test"), WatchedName::new).failed("NXDOMAIN");
        assertEquals("orders.test has not resolved yet (NXDOMAIN)", found(group).unavailable());
    }

    @Test
    void srvRecordsGiveTargetPortWeightAndBackupsPastTheLowestPriority() {
        UpstreamGroupConfig group = group("discovery { srv = \"_https._tcp.orders.test\" }");
        answer(DnsName.Kind.SRV, "_https._tcp.orders.test",
                new Endpoint("10.0.0.1", 8443, 0, 5, "a.test"),
                new Endpoint("10.0.0.2", 8444, 65535, 5, "b.test"),
                new Endpoint("10.0.0.3", 8445, 40, 9, "c.test"));
        Map<String, UpstreamGroupConfig.Server> byAuthority = new HashMap<>();
        found(group).settings().servers().forEach(s -> byAuthority.put(s.authority(), s));
        assertEquals(1, byAuthority.get("10.0.0.1:8443").weight(), "weight 0 still gets a share");
        assertEquals(1000, byAuthority.get("10.0.0.2:8444").weight(), "capped at Kodiak's largest weight");
        assertEquals(40, byAuthority.get("10.0.0.3:8445").weight());
        assertFalse(byAuthority.get("10.0.0.1:8443").backup());
        assertTrue(byAuthority.get("10.0.0.3:8445").backup());
        assertTrue(byAuthority.get("10.0.0.1:8443").tls(), "an _https service is spoken to over TLS");
        assertEquals("b.test", byAuthority.get("10.0.0.2:8444").tlsHost());
    }

    @Test
    void moreAddressesThanAGroupHoldsAreCut() {
        UpstreamGroupConfig group = group("servers = [ { url = \"http://orders.test:80\", resolve = true } ]");
        Endpoint[] many = new Endpoint[70];
        for (int i = 0; i < many.length; i++) {
            many[i] = Endpoint.address("10.0.1." + i, "orders.test");
        }
        answer(DnsName.Kind.ADDRESSES, "orders.test", many);
        assertEquals(GroupServers.MAX_SERVERS, found(group).settings().servers().size());
    }

    @Test
    void theTtlSchedulesTheNextLookupWithinOneSecondAndValid() {
        assertEquals(5_000, Discovery.refreshMillis(5, Duration.ofSeconds(30)));
        assertEquals(30_000, Discovery.refreshMillis(86_400, Duration.ofSeconds(30)));
        assertEquals(1_000, Discovery.refreshMillis(0, Duration.ofSeconds(30)), "TTL 0 is not a loop");
        assertEquals(5_000, Discovery.retryMillis(Duration.ofSeconds(30)));
        assertEquals(1_000, Discovery.retryMillis(Duration.ofSeconds(1)));
    }
}
