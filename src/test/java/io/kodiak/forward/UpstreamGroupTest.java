package io.kodiak.forward;

import io.kodiak.support.Await;
import io.kodiak.support.GroupServer;
import io.kodiak.support.ManualClock;
import io.kodiak.support.ProxyHarness;
import io.kodiak.upstream.UpstreamGroup;
import io.kodiak.upstream.UpstreamServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Routes to a group of three real servers on ephemeral ports: balancing, failover, health and retries. */
class UpstreamGroupTest {
    private final List<GroupServer> servers = new ArrayList<>();
    private final HttpClient client = io.kodiak.support.TestTls.httpClient().build();
    private ProxyHarness proxy;

    @BeforeEach
    void threeServers() throws IOException {
        for (String name : List.of("a", "b", "c")) {
            servers.add(new GroupServer(name, "/health"));
        }
    }

    @AfterEach
    void stop() throws IOException {
        if (proxy != null) {
            proxy.close();
        }
        for (GroupServer server : servers) {
            server.close();
        }
    }

    private GroupServer server(int i) {
        return servers.get(i);
    }

    /** Starts Kodiak with group "app" of {@code serverList} and the group settings in {@code group}. */
    private void proxy(String serverList, String group) throws IOException {
        proxy = ProxyHarness.start("proxy.upstreams.app { servers = [" + serverList + "]\n" + group + "\n}\n"
                + "proxy.routes = [ { prefix = \"/\", upstream = \"http://app/\" } ]\n");
    }

    private String all() {
        return "\"" + server(0).url() + "\", \"" + server(1).url() + "\", \"" + server(2).url() + "\"";
    }

    private HttpResponse<String> send(String method, String path, String body) throws Exception {
        HttpRequest.BodyPublisher publisher = body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body);
        return client.send(HttpRequest.newBuilder(proxy.uri(path)).method(method, publisher).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path) throws Exception {
        return send("GET", path, null);
    }

    private Map<String, Integer> spread(int requests) throws Exception {
        Map<String, Integer> byServer = new HashMap<>();
        for (int i = 0; i < requests; i++) {
            HttpResponse<String> response = get("/x" + i);
            assertEquals(200, response.statusCode(), response.body());
            byServer.merge(response.body(), 1, Integer::sum);
        }
        return byServer;
    }

    private UpstreamGroup group() {
        return proxy.kodiak().upstreams().groups().stream()
                .filter(g -> g.name().equals("app")).findFirst().orElseThrow();
    }

    private UpstreamServer state(int i) {
        return group().servers().get(i);
    }

    /**
     * Stops the group's clock: a fail-timeout (and the retry budget's window) can then never run out during
     * the test, however slow the machine; the test moves the clock itself where time passing is the point.
     */
    private ManualClock stopTheClock() {
        ManualClock clock = new ManualClock();
        group().useClock(clock);
        return clock;
    }

    /**
     * Sends requests until one is answered by {@code server} (bounded by Await's deadline): active checks
     * that run every 100 ms may see a passing moment of load as a failure and take a server out for a
     * check or two, so "it is used again" is a state to wait for, not a property of the next N requests.
     */
    private void awaitServedBy(GroupServer server) throws InterruptedException {
        int seen = server.received().size();
        Await.await(() -> {
            try {
                get("/back").statusCode();
            } catch (Exception e) {
                return false;
            }
            return server.received().size() > seen;
        }, () -> "a request to reach server " + server.name());
    }

    @Test
    void weightedRoundRobinSpreadsExactlyByWeight() throws Exception {
        proxy("\"" + server(0).url() + "\", { url = \"" + server(1).url() + "\", weight = 2 }, \"" + server(2).url() + "\"", "");
        assertEquals(Map.of("a", 4, "b", 8, "c", 4), spread(16));
        assertTrue(server(0).received().get(0).target().matches("/x[0-9]+"), "the route's path reaches the server");
    }

    @Test
    void aKilledServerCostsNoGetAndItsTrafficMovesToTheOthers() throws Exception {
        proxy(all(), "passive { max-fails = 1, fail-timeout = 60s }");
        stopTheClock();
        spread(6);
        server(1).kill();
        int before = server(1).received().size();
        Map<String, Integer> after = spread(30);
        assertEquals(30, after.getOrDefault("a", 0) + after.getOrDefault("c", 0), "every GET answered by a live server");
        assertEquals(before, server(1).received().size());
        assertEquals(UpstreamServer.Status.EJECTED, state(1).status());
        assertTrue(proxy.kodiak().upstreams().groups().stream().mapToLong(UpstreamGroup::retries).sum() >= 1,
                "the request that met the dead server was retried");
    }

    @Test
    void aPostWhoseBodyWasSentIsNeverDeliveredTwice() throws Exception {
        proxy(all(), "retry { attempts = 3, on = [\"connect-failure\", \"reset\", \"502\", \"503\"] }");
        server(0).mode(GroupServer.Mode.RESET_AFTER_REQUEST);
        Map<Integer, Integer> statuses = new HashMap<>();
        for (int i = 0; i < 9; i++) {
            statuses.merge(send("POST", "/orders", "order-" + i).statusCode(), 1, Integer::sum);
        }
        assertTrue(statuses.getOrDefault(502, 0) >= 1, "the POST the resetting server took is answered 502: " + statuses);
        for (int i = 0; i < 9; i++) {
            String body = "order-" + i;
            long deliveries = servers.stream().flatMap(s -> s.received().stream()).filter(r -> r.body().equals(body)).count();
            assertEquals(1, deliveries, body + " reached exactly one server");
        }
        // A GET that met the same server goes on to another one.
        for (int i = 0; i < 6; i++) {
            assertEquals(200, get("/again" + i).statusCode());
        }
    }

    @Test
    void aGetWithAChunkedBodyIsNotSentTwiceEvenWhenTheBodyIsEmpty() throws Exception {
        proxy("\"" + server(0).url() + "\", \"" + server(1).url() + "\"", "passive { max-fails = 0 }");
        server(0).mode(GroupServer.Mode.RESET_AFTER_REQUEST);
        try (io.kodiak.support.RawHttp raw = new io.kodiak.support.RawHttp(proxy.port())) {
            raw.send("GET /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n");
            assertEquals(502, raw.read().status(), "its last chunk left apart from its head: not resendable");
        }
        assertEquals(1, server(0).received().size() + server(1).received().size());
        for (int i = 0; i < 2; i++) {
            assertEquals(200, get("/plain" + i).statusCode(), "a GET without a body that meets the reset goes on");
        }
        assertEquals(2, server(0).received().size(), "one of them met the resetting server first");
    }

    @Test
    void passiveHealthEjectsAServerAndTakesItBackAfterATrial() throws Exception {
        proxy(all(), "passive { max-fails = 2, fail-timeout = 1s }\nretry { attempts = 1 }");
        // Time stands still until the test moves it: both failures fall within fail-timeout, and the ejection
        // cannot end while the nine requests are sent, whatever the machine's speed.
        ManualClock clock = stopTheClock();
        server(2).answerWith(503);
        int fives = 0;
        for (int i = 0; i < 9; i++) {
            if (get("/p" + i).statusCode() == 503) {
                fives++;
            }
        }
        assertEquals(2, fives, "two 503s reach the client, then the server is out of rotation");
        assertEquals(UpstreamServer.Status.EJECTED, state(2).status());
        server(2).answerWith(200);
        int seen = server(2).received().size();
        clock.advance(Duration.ofMillis(999));
        spread(6);
        assertEquals(seen, server(2).received().size(), "no request before fail-timeout has passed");
        assertEquals(UpstreamServer.Status.EJECTED, state(2).status());
        clock.advance(Duration.ofMillis(1));
        awaitServedBy(server(2));
        assertEquals(seen + 1, server(2).received().size(), "one trial request");
        assertEquals(UpstreamServer.Status.UP, state(2).status(), "its success brings the server back");
    }

    @Test
    void activeChecksTakeAServerDownAfterFallAndBackAfterRise() throws Exception {
        proxy(all(), "health-check { path = \"/health\", interval = 100ms, timeout = 100ms, rise = 2, fall = 2 }");
        Await.await(() -> server(0).healthChecks().size() >= 1, "checks run");
        server(0).healthAnswers(500);
        Await.await(() -> state(0).status() == UpstreamServer.Status.DOWN, "server a goes down");
        int seen = server(0).received().size();
        Map<String, Integer> spread = spread(10);
        assertEquals(seen, server(0).received().size(), "no request goes to a server that is down: " + spread);
        server(0).healthAnswers(200);
        Await.await(() -> state(0).status() == UpstreamServer.Status.UP, "server a comes back");
        awaitServedBy(server(0));
        assertEquals("GET", server(0).healthChecks().get(0).method());
    }

    @Test
    void aServerBackUpByItsChecksIsUsedAtOnceWhateverItsPassiveEjection() throws Exception {
        proxy(all(), "passive { max-fails = 1, fail-timeout = 60s }\n"
                + "health-check { path = \"/health\", interval = 100ms, timeout = 100ms, rise = 1, fall = 1 }");
        // Only the checks can bring it back: the passive ejection's 60 s never run out on a stopped clock.
        stopTheClock();
        server(0).kill();
        spread(3);
        Await.await(() -> state(0).status() == UpstreamServer.Status.DOWN, "checks see the dead server");
        server(0).restart();
        Await.await(() -> state(0).status() == UpstreamServer.Status.UP, "checks see it back, long before 60 s");
        awaitServedBy(server(0));
    }

    @Test
    void backupServersServeOnlyWhileNoPrimaryIsUp() throws Exception {
        proxy("\"" + server(0).url() + "\", { url = \"" + server(1).url() + "\", backup = true }",
                "passive { max-fails = 1, fail-timeout = 60s }");
        stopTheClock();
        assertEquals(Map.of("a", 5), spread(5));
        server(0).kill();
        assertEquals(Map.of("b", 5), spread(5), "the backup takes over, the request that found a dead retried");
    }

    @Test
    void whenEveryServerIsDownTheGroupStillUsesThem() throws Exception {
        proxy("\"" + server(0).url() + "\", \"" + server(1).url() + "\"",
                "health-check { path = \"/health\", interval = 100ms, timeout = 100ms, rise = 1, fall = 1 }");
        server(0).healthAnswers(503);
        server(1).healthAnswers(503);
        Await.await(() -> state(0).status() == UpstreamServer.Status.DOWN && state(1).status() == UpstreamServer.Status.DOWN,
                "both servers down by their checks");
        Map<String, Integer> spread = spread(4);
        assertEquals(4, spread.values().stream().mapToInt(Integer::intValue).sum(), "panic mode: " + spread);
    }

    @Test
    void theRetryBudgetStopsARetryStorm() throws Exception {
        proxy(all(), "passive { max-fails = 0 }\nretry { attempts = 3, on = [\"503\"], budget = 0% }");
        // All 30 requests within one budget window (10 s), however long they take.
        stopTheClock();
        for (GroupServer s : servers) {
            s.answerWith(503);
        }
        for (int i = 0; i < 30; i++) {
            assertEquals(503, get("/storm" + i).statusCode());
        }
        int delivered = servers.stream().mapToInt(s -> s.received().size()).sum();
        assertTrue(delivered <= 30 + 3, "at most the budget's minimum of retries on top of 30 requests: " + delivered);
    }

    @Test
    void aGetAnswered503GoesToTheNextServerAndAPostDoesNot() throws Exception {
        proxy(all(), "passive { max-fails = 0 }\nretry { attempts = 2, on = [\"503\"] }");
        server(1).answerWith(503);
        for (int i = 0; i < 9; i++) {
            HttpResponse<String> response = get("/r" + i);
            assertEquals(200, response.statusCode());
            assertTrue(!response.body().equals("b"));
        }
        int fives = 0;
        for (int i = 0; i < 9; i++) {
            if (send("POST", "/r", "x").statusCode() == 503) {
                fives++;
            }
        }
        assertEquals(3, fives, "a POST gets the server's own 503");
    }

    @Test
    void hashingOnACookieKeepsAUserOnOneServer() throws Exception {
        proxy(all(), "balance = hash\nhash-key = \"cookie:SESSION\"");
        for (int user = 0; user < 10; user++) {
            String first = null;
            for (int i = 0; i < 4; i++) {
                HttpResponse<String> response = client.send(HttpRequest.newBuilder(proxy.uri("/h"))
                        .header("Cookie", "theme=dark; SESSION=user" + user).build(), HttpResponse.BodyHandlers.ofString());
                first = first == null ? response.body() : first;
                assertEquals(first, response.body(), "user" + user + " stays on one server");
            }
        }
    }
}
