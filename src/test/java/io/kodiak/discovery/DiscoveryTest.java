package io.kodiak.discovery;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.kodiak.support.Await;
import io.kodiak.support.DnsResponder;
import io.kodiak.support.GroupServer;
import io.kodiak.support.ProxyHarness;
import io.kodiak.upstream.UpstreamGroup;
import io.kodiak.upstream.UpstreamServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetAddress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Upstream names resolved while Kodiak runs, against a DNS server of the test's whose records it
 * changes: servers follow the answers (A and SRV), TTLs schedule the next lookup, failed lookups
 * keep the last good answer, and a name never resolved makes only its own group answer 503.
 */
class DiscoveryTest {
    private final HttpClient client = HttpClient.newHttpClient();
    private final List<GroupServer> servers = new ArrayList<>();
    private DnsResponder dns;
    private ProxyHarness proxy;
    private final List<Runnable> detach = new ArrayList<>();

    @AfterEach
    void stop() throws IOException {
        detach.forEach(Runnable::run);
        if (proxy != null) {
            proxy.close();
        }
        for (GroupServer server : servers) {
            server.close();
        }
        if (dns != null) {
            dns.close();
        }
    }

    private GroupServer server(String name, String address, int port) throws IOException {
        GroupServer server = new GroupServer(name, "/health", InetAddress.getByName(address), port);
        servers.add(server);
        return server;
    }

    /** Kodiak asking the test's DNS server; {@code rest}: groups and routes. */
    private void proxy(String valid, String rest) throws IOException {
        proxy = ProxyHarness.start("proxy.resolver { servers = [\"" + dns.address() + "\"], valid = " + valid
                + ", timeout = 300ms }\n" + rest);
    }

    private static String resolvedGroup(String group, String host, int port) {
        return "proxy.upstreams." + group + ".servers = [ { url = \"http://" + host + ":" + port + "\", resolve = true } ]\n";
    }

    private HttpResponse<String> get(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(proxy.uri(path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private UpstreamGroup group(String name) {
        return proxy.kodiak().upstreams().groups().stream().filter(g -> g.name().equals(name)).findFirst().orElseThrow();
    }

    private List<String> addresses(String group) {
        return group(group).servers().stream().map(UpstreamServer::authority).toList();
    }

    /** WARN lines of {@code logger} from now until the test's end. */
    private ListAppender<ILoggingEvent> warnings(Class<?> logger) {
        Logger log = (Logger) LoggerFactory.getLogger(logger);
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        log.addAppender(lines);
        detach.add(() -> log.detachAppender(lines));
        return lines;
    }

    private static List<String> messages(ListAppender<ILoggingEvent> lines, String containing) {
        List<ILoggingEvent> events;
        synchronized (lines) {
            // The resolver's thread appends under the appender's lock (AppenderBase.doAppend): copy under it too.
            events = new ArrayList<>(lines.list);
        }
        return events.stream().filter(e -> e.getLevel() == Level.WARN).map(ILoggingEvent::getFormattedMessage)
                .filter(m -> m.contains(containing)).toList();
    }

    /** Kodiak's 503 for a group without a server: the body says so, the WARN line names the name and why. */
    private void assertUnresolved(String path, ListAppender<ILoggingEvent> exchangeLog, String cause) throws Exception {
        HttpResponse<String> response = get(path);
        assertEquals(503, response.statusCode());
        assertTrue(response.body().contains("the upstream group has no server (its names have not resolved)"), response.body());
        Await.await(() -> !messages(exchangeLog, "cause=unresolved").isEmpty(), "the 503's log line");
        String line = messages(exchangeLog, "cause=unresolved").get(0);
        assertTrue(line.contains(cause), line);
    }

    private WatchedName watched(String name) {
        return proxy.kodiak().discovery().names().stream().filter(n -> n.name().name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void serversFollowTheAnswerUnderLoadWithoutAFailedRequest() throws Exception {
        dns = new DnsResponder();
        GroupServer a = server("a", "127.0.0.2", 0);
        GroupServer b = server("b", "127.0.0.3", a.port());
        dns.addresses("orders.test", 1, "127.0.0.2");
        proxy("30s", resolvedGroup("orders", "orders.test", a.port())
                + "proxy.routes = [ { prefix = \"/\", upstream = \"http://orders/\" } ]\n");
        assertEquals(List.of("127.0.0.2:" + a.port()), addresses("orders"), "resolved before the first request");
        assertEquals("a", get("/first").body());
        UpstreamServer first = group("orders").servers().get(0);

        AtomicBoolean sending = new AtomicBoolean(true);
        Map<String, AtomicInteger> answers = new ConcurrentHashMap<>();
        List<String> failures = new CopyOnWriteArrayList<>();
        ExecutorService clients = Executors.newFixedThreadPool(4);
        List<Future<?>> running = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            int client = c;
            running.add(clients.submit(() -> {
                for (int i = 0; sending.get(); i++) {
                    try {
                        HttpResponse<String> response = get("/c" + client + "/" + i);
                        if (response.statusCode() != 200) {
                            failures.add(response.statusCode() + " " + response.body());
                        } else {
                            answers.computeIfAbsent(response.body(), k -> new AtomicInteger()).incrementAndGet();
                        }
                    } catch (Exception e) {
                        failures.add(e.toString());
                    }
                }
            }));
        }
        try {
            Await.await(() -> answers.containsKey("a") && answers.get("a").get() > 20, "load on a");
            // Both for a moment (a new server joins before the old one leaves), then b alone.
            dns.addresses("orders.test", 1, "127.0.0.2", "127.0.0.3");
            Await.await(() -> addresses("orders").size() == 2, () -> "both addresses in the group: " + addresses("orders"));
            UpstreamServer stays = group("orders").servers().stream()
                    .filter(s -> s.authority().equals(first.authority())).findFirst().orElseThrow();
            assertSame(first.pool(), stays.pool(), "the address that stays keeps its pool");
            assertTrue(stays.requests() >= first.requests(), "and its counts");
            Await.await(() -> answers.containsKey("b") && answers.get("b").get() > 20, "load on b");
            dns.addresses("orders.test", 1, "127.0.0.3");
            Await.await(() -> addresses("orders").equals(List.of("127.0.0.3:" + a.port())), () -> "b alone: " + addresses("orders"));
            int onA = a.received().size();
            int onB = b.received().size();
            Await.await(() -> b.received().size() > onB + 40, "load on b alone");
            assertEquals(onA, a.received().size(), "no request to the removed address after the switch");
        } finally {
            sending.set(false);
            for (Future<?> f : running) {
                f.get(10, TimeUnit.SECONDS);
            }
            clients.shutdown();
        }
        assertEquals(List.of(), failures, "every request across the switches answered 200");
        // The removed address's pool drained and closed; its requests were counted on it until then.
        Await.await(() -> first.pool().openConnections() == 0, "the removed server's connections closed");
        assertTrue(proxy.kodiak().upstreams().pools().stream().noneMatch(p -> p == first.pool()));
        assertEquals(1, proxy.kodiak().generation().number(), "DNS changes are not reloads");
    }

    @Test
    void aShortTtlIsAskedAgainBeforeValidRunsOut() throws Exception {
        dns = new DnsResponder();
        GroupServer a = server("a", "127.0.0.2", 0);
        dns.addresses("short.test", 1, "127.0.0.2");
        // valid (60 s) is far past the wait's deadline: only the TTL can bring the next lookup.
        proxy("60s", resolvedGroup("short", "short.test", a.port()) + "proxy.routes = [ { prefix = \"/\", upstream = \"http://short/\" } ]\n");
        int atStart = dns.queries("short.test");
        assertTrue(atStart >= 2, "A and AAAA asked at start");
        Await.await(() -> dns.queries("short.test") >= atStart + 4, "short.test asked again twice");
        // A change is seen at the next lookup, without any reload.
        GroupServer b = server("b", "127.0.0.3", a.port());
        dns.addresses("short.test", 1, "127.0.0.3");
        Await.await(() -> addresses("short").equals(List.of("127.0.0.3:" + a.port())), () -> "short now b: " + addresses("short"));
        assertEquals("b", get("/x").body());
        assertEquals(1, b.received().size());
    }

    @Test
    void validCapsALongTtl() throws Exception {
        dns = new DnsResponder();
        GroupServer a = server("a", "127.0.0.2", 0);
        dns.addresses("long.test", 86_400, "127.0.0.2");
        proxy("1s", resolvedGroup("long", "long.test", a.port()) + "proxy.routes = [ { prefix = \"/\", upstream = \"http://long/\" } ]\n");
        int atStart = dns.queries("long.test");
        Await.await(() -> dns.queries("long.test") >= atStart + 4, "long.test asked again twice within valid");
        assertEquals("a", get("/x").body());
    }

    @Test
    void aReloadResolvesTheNamesItAddsBeforeItAppliesAndForgetsThoseItRemoves() throws Exception {
        dns = new DnsResponder();
        GroupServer a = server("a", "127.0.0.2", 0);
        GroupServer b = server("b", "127.0.0.3", a.port());
        dns.addresses("orders.test", 60, "127.0.0.2");
        dns.addresses("billing.test", 60, "127.0.0.3");
        String resolver = "proxy.resolver { servers = [\"" + dns.address() + "\"], valid = 60s, timeout = 300ms }\n";
        proxy("60s", resolvedGroup("orders", "orders.test", a.port()) + "proxy.routes = [ { prefix = \"/\", upstream = \"http://orders/\" } ]\n");
        UpstreamServer ordersServer = group("orders").servers().get(0);

        proxy.reload(resolver + resolvedGroup("orders", "orders.test", a.port()) + resolvedGroup("billing", "billing.test", a.port())
                + "proxy.routes = [ { prefix = \"/\", upstream = \"http://orders/\" }, { prefix = \"/b/\", upstream = \"http://billing/\" } ]\n");
        // No wait: the reload asked for billing.test before it built the groups.
        assertEquals("b", get("/b/x").body());
        assertSame(ordersServer, group("orders").servers().get(0), "an unchanged resolved group is kept as it is");

        proxy.reload(resolver + resolvedGroup("billing", "billing.test", a.port())
                + "proxy.routes = [ { prefix = \"/b/\", upstream = \"http://billing/\" } ]\n");
        assertEquals(List.of("billing.test"), proxy.kodiak().discovery().names().stream().map(n -> n.name().name()).toList());
        int asked = dns.queries("orders.test");
        dns.addresses("orders.test", 1, "127.0.0.3");
        assertEquals("b", get("/b/y").body());
        assertEquals(asked, dns.queries("orders.test"), "a name no longer used is not asked again");
    }

    @Test
    void srvRecordsGiveHostPortAndWeight() throws Exception {
        dns = new DnsResponder();
        GroupServer a = server("a", "127.0.0.1", 0);
        GroupServer b = server("b", "127.0.0.1", 0);
        GroupServer spare = server("spare", "127.0.0.1", 0);
        dns.addresses("a.test", 60, "127.0.0.1");
        dns.addresses("b.test", 60, "127.0.0.1");
        dns.srv("_http._tcp.orders.test", 60,
                new DnsResponder.Srv(10, 30, a.port(), "a.test"),
                new DnsResponder.Srv(10, 10, b.port(), "b.test"),
                new DnsResponder.Srv(20, 50, spare.port(), "a.test"),
                // Port 0 cannot be connected to: left out, not made a server that fails every try.
                new DnsResponder.Srv(10, 30, 0, "b.test"));
        proxy("30s", "proxy.upstreams.orders.discovery { srv = \"_http._tcp.orders.test\" }\n"
                + "proxy.routes = [ { prefix = \"/\", upstream = \"http://orders/\" } ]\n");
        Map<String, UpstreamServer> byPort = new HashMap<>();
        group("orders").servers().forEach(s -> byPort.put(String.valueOf(s.port()), s));
        assertEquals(3, byPort.size());
        assertEquals(30, byPort.get(String.valueOf(a.port())).weight());
        assertEquals(10, byPort.get(String.valueOf(b.port())).weight());
        assertTrue(byPort.get(String.valueOf(spare.port())).backup(), "a record past the lowest priority stands by");
        assertEquals("a.test", byPort.get(String.valueOf(a.port())).dnsName());

        Map<String, Integer> spread = new HashMap<>();
        for (int i = 0; i < 80; i++) {
            HttpResponse<String> response = get("/x" + i);
            assertEquals(200, response.statusCode(), response.body());
            spread.merge(response.body(), 1, Integer::sum);
        }
        // Smooth weighted round-robin: exactly 3 to 1 over a whole number of rounds.
        assertEquals(Map.of("a", 60, "b", 20), spread);
    }

    @Test
    void aNameThatTimesOutKeepsItsLastAnswerAndOneNeverResolvedIs503ForItsGroupOnly() throws Exception {
        dns = new DnsResponder();
        GroupServer a = server("a", "127.0.0.2", 0);
        dns.addresses("orders.test", 1, "127.0.0.2");
        dns.addresses("billing.test", 1, "127.0.0.2");
        dns.silent("billing.test", true);
        ListAppender<ILoggingEvent> exchangeLog = warnings(io.kodiak.exchange.Exchange.class);
        proxy("1s", resolvedGroup("orders", "orders.test", a.port()) + resolvedGroup("billing", "billing.test", a.port())
                + "proxy.routes = [ { prefix = \"/o/\", upstream = \"http://orders/\" }, { prefix = \"/b/\", upstream = \"http://billing/\" } ]\n");

        // Started although billing.test does not answer; billing alone is unavailable, saying why.
        assertUnresolved("/b/x", exchangeLog, "group billing: billing.test has not resolved yet (no answer");
        assertEquals("a", get("/o/x").body());

        // orders.test stops answering: its lookups fail and the last good address stays.
        dns.silent("orders.test", true);
        Await.await(() -> watched("orders.test").failures() >= 2, "orders.test failing");
        assertNotNull(watched("orders.test").failing());
        assertEquals(List.of("127.0.0.2:" + a.port()), addresses("orders"));
        assertEquals("a", get("/o/y").body());

        // billing.test answers at last: its group serves.
        dns.silent("billing.test", false);
        Await.await(() -> group("billing").unavailable() == null, "billing resolved");
        assertEquals("a", get("/b/y").body());
        assertNull(watched("billing.test").failing());
    }

    @Test
    void nxdomainKeepsTheLastAnswerLoggedOnceAndANameNeverResolvedIs503() throws Exception {
        ListAppender<ILoggingEvent> lines = warnings(WatchedName.class);
        ListAppender<ILoggingEvent> exchangeLog = warnings(io.kodiak.exchange.Exchange.class);
        {
            dns = new DnsResponder();
            GroupServer a = server("a", "127.0.0.2", 0);
            dns.addresses("orders.test", 1, "127.0.0.2");
            proxy("1s", resolvedGroup("orders", "orders.test", a.port()) + resolvedGroup("billing", "billing.test", a.port())
                    + "proxy.routes = [ { prefix = \"/o/\", upstream = \"http://orders/\" }, { prefix = \"/b/\", upstream = \"http://billing/\" } ]\n");
            assertUnresolved("/b/x", exchangeLog, "group billing: billing.test has not resolved yet (NXDOMAIN)");

            dns.remove("orders.test");
            Await.await(() -> watched("orders.test").failures() >= 3, "orders.test asked three times in vain");
            assertEquals("a", get("/o/x").body(), "the last good address serves");
            List<String> warnings = messages(lines, "resolver: orders.test");
            assertEquals(1, warnings.size(), "one line for a failure that repeats: " + warnings);
            assertTrue(warnings.get(0).contains("NXDOMAIN") && warnings.get(0).contains("keeping the last good answer"), warnings.get(0));
            assertTrue(group("billing").servers().isEmpty());
        }
    }
}
