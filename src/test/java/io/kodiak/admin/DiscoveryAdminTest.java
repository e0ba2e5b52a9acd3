package io.kodiak.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kodiak.support.DnsResponder;
import io.kodiak.support.GroupServer;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.http.HttpResponse;
import java.time.Instant;

import static io.kodiak.admin.PrometheusText.value;
import static io.kodiak.support.Await.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** /upstreams and /metrics tell each resolved name, its addresses, when it last resolved, and its failed lookups. */
class DiscoveryAdminTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void resolvedNamesTheirAddressesAndFailuresAreShown() throws Exception {
        try (DnsResponder dns = new DnsResponder();
             GroupServer a = new GroupServer("a", "/health", InetAddress.getByName("127.0.0.2"), 0)) {
            dns.addresses("orders.test", 1, "127.0.0.2");
            Instant before = Instant.now();
            try (AdminHarness proxy = AdminHarness.start("proxy.resolver { servers = [\"" + dns.address() + "\"], valid = 1s, timeout = 300ms }\n"
                    + "proxy.upstreams.orders.servers = [ { url = \"http://orders.test:" + a.port() + "\", resolve = true } ]\n"
                    + "proxy.upstreams.billing.discovery { srv = \"_http._tcp.billing.test\" }\n"
                    + "proxy.routes = [ { prefix = \"/o/\", upstream = \"http://orders/\" }, { prefix = \"/b/\", upstream = \"http://billing/\" } ]")) {
                JsonNode report = JSON.readTree(proxy.admin("/upstreams").body());
                JsonNode orders = group(report, "orders");
                assertEquals("orders.test", orders.get("servers").get(0).get("name").asText());
                assertEquals("127.0.0.2:" + a.port(), orders.get("servers").get(0).get("address").asText());
                JsonNode billing = group(report, "billing");
                assertEquals("_http._tcp.billing.test", billing.get("srv").asText());
                assertEquals("_http._tcp.billing.test has not resolved yet (NXDOMAIN)", billing.get("unavailable").asText());

                JsonNode name = entry(report, "orders.test");
                assertEquals("A/AAAA", name.get("type").asText());
                assertEquals("[\"127.0.0.2\"]", name.get("addresses").toString());
                assertTrue(!Instant.parse(name.get("resolved_at").asText()).isBefore(before.minusSeconds(1)), name.toString());
                assertTrue(name.get("failing").isNull());
                JsonNode srv = entry(report, "_http._tcp.billing.test");
                assertEquals("SRV", srv.get("type").asText());
                assertEquals(0, srv.get("addresses").size());
                assertTrue(srv.get("resolved_at").isNull());
                assertEquals("NXDOMAIN", srv.get("failing").asText());

                String tags = "{name=\"orders.test\",type=\"A/AAAA\"}";
                assertEquals(0, value(proxy.metrics(), "kodiak_resolver_failures_total" + tags));
                assertEquals(1, value(proxy.metrics(), "kodiak_resolver_addresses" + tags));
                dns.remove("orders.test");
                await(() -> value(metrics(proxy), "kodiak_resolver_failures_total" + tags) >= 2, "failed lookups counted");
                assertEquals(1, value(proxy.metrics(), "kodiak_resolver_addresses" + tags), "the last good answer stays");
                assertTrue(value(proxy.metrics(), "kodiak_resolver_failures_total{name=\"_http._tcp.billing.test\",type=\"SRV\"}") >= 1);
                assertEquals("NXDOMAIN", entry(JSON.readTree(proxy.admin("/upstreams").body()), "orders.test").get("failing").asText());
                HttpResponse<String> served = proxy.proxyPost("/o/x", "");
                assertEquals("a", served.body());
            }
        }
    }

    private static String metrics(AdminHarness proxy) {
        try {
            return proxy.metrics();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static JsonNode group(JsonNode report, String name) {
        for (JsonNode group : report.get("groups")) {
            if (group.get("name").asText().equals(name)) {
                return group;
            }
        }
        throw new AssertionError(name + " not in " + report.get("groups"));
    }

    private static JsonNode entry(JsonNode report, String name) {
        for (JsonNode entry : report.get("resolved")) {
            if (entry.get("name").asText().equals(name)) {
                return entry;
            }
        }
        throw new AssertionError(name + " not in " + report.get("resolved"));
    }
}
