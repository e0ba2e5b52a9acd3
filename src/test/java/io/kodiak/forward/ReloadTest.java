package io.kodiak.forward;

import io.kodiak.ReloadRefusedException;
import io.kodiak.support.GroupServer;
import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import io.kodiak.support.TestTls;
import io.kodiak.support.TestUpstream;
import io.kodiak.upstream.UpstreamPool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static io.kodiak.support.Await.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Configuration reloads on a running proxy ({@link io.kodiak.Kodiak#reload}): what changes takes
 * effect for exchanges that start after the reload, exchanges in flight finish under theirs,
 * nothing fails while reloads follow one another under load, unchanged pools keep their
 * connections, removed servers drain, and a listener moves to another port without dropping the
 * connections on the old one.
 */
class ReloadTest {
    private final List<GroupServer> servers = new ArrayList<>();
    // HTTP/1.1 only: the JDK client's h2c upgrade offer on a POST keeps the test upstream (Grizzly) from reading its body.
    private final HttpClient client = TestTls.httpClient().version(HttpClient.Version.HTTP_1_1).build();
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

    private static String route(String prefix, String upstream) {
        return "{ prefix = \"" + prefix + "\", upstream = \"" + upstream + "/\" }";
    }

    private static String routes(String... routes) {
        return "proxy.routes = [ " + String.join(", ", routes) + " ]\n";
    }

    private String group(String... urls) {
        return "proxy.upstreams.app.servers = [ \"" + String.join("\", \"", urls) + "\" ]\n";
    }

    private HttpResponse<String> get(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(proxy.uri(path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aChangedRouteServesTheNextRequestOfAnOpenConnection() throws Exception {
        proxy = ProxyHarness.start(routes(route("/", server(0).url())));
        try (RawHttp raw = new RawHttp(proxy.port())) {
            raw.send("GET /x HTTP/1.1\r\nHost: h\r\n\r\n");
            assertEquals("a", raw.read().bodyText());

            assertEquals(2, proxy.reload(routes(route("/", server(1).url()))));

            // Same client connection, next request: the new generation's route.
            raw.send("GET /y HTTP/1.1\r\nHost: h\r\n\r\n");
            RawHttp.Response after = raw.read();
            assertEquals(200, after.status());
            assertEquals("b", after.bodyText());
        }
        assertEquals(List.of("/x"), server(0).received().stream().map(GroupServer.Request::target).toList());
        assertEquals(List.of("/y"), server(1).received().stream().map(GroupServer.Request::target).toList());
    }

    @Test
    void anExchangeInFlightFinishesUnderTheConfigurationItStartedWith() throws Exception {
        try (TestUpstream held = TestUpstream.start()) {
            proxy = ProxyHarness.start(routes(route("/", held.url(""))));
            ExecutorService background = Executors.newSingleThreadExecutor();
            try {
                Future<HttpResponse<String>> inFlight = background.submit(() -> get("/hold"));
                await(() -> held.holds() == 1, "the request to reach the upstream");

                proxy.reload(routes(route("/", server(0).url())));
                assertEquals("a", get("/after").body(), "a new exchange takes the new route");

                held.release();
                HttpResponse<String> finished = inFlight.get(10, TimeUnit.SECONDS);
                assertEquals(200, finished.statusCode());
                assertEquals("held ok", finished.body());
                // Its server left the configuration: its connection closes once the exchange is over.
                assertTrue(held.awaitConnectionClosed(10_000), "the retired pool closes the connection after use");
            } finally {
                background.shutdownNow();
            }
        }
    }

    @Test
    void reloadsUnderLoadFailNoRequest() throws Exception {
        String configA = group(server(0).url(), server(1).url()) + routes(route("/", "http://app"));
        String configB = group(server(1).url(), server(2).url()) + "proxy.upstreams.app.balance = least-connections\n"
                + "proxy.upstream.response-timeout = 20s\n" + routes(route("/", "http://app"), route("/other/", server(0).url()));
        proxy = ProxyHarness.start(configA);
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong ok = new AtomicLong();
        Map<String, AtomicInteger> failures = new ConcurrentHashMap<>();
        int clients = 4;
        ExecutorService load = Executors.newFixedThreadPool(clients);
        List<Future<?>> loops = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            loops.add(load.submit(() -> {
                while (running.get()) {
                    try {
                        HttpResponse<String> response = get("/loop");
                        if (response.statusCode() == 200) {
                            ok.incrementAndGet();
                        } else {
                            failures.computeIfAbsent("status " + response.statusCode(), k -> new AtomicInteger()).incrementAndGet();
                        }
                    } catch (Exception e) {
                        failures.computeIfAbsent(e.toString(), k -> new AtomicInteger()).incrementAndGet();
                    }
                }
                return null;
            }));
        }
        try {
            for (int i = 0; i < 40; i++) {
                long before = ok.get();
                await(() -> ok.get() >= before + 20, "requests between two reloads");
                proxy.reload(i % 2 == 0 ? configB : configA);
            }
        } finally {
            running.set(false);
            for (Future<?> loop : loops) {
                loop.get(30, TimeUnit.SECONDS);
            }
            load.shutdownNow();
        }
        assertEquals(Map.of(), Map.copyOf(failures), "failed requests across 40 reloads");
        assertEquals(41, proxy.kodiak().generation().number());
        assertTrue(ok.get() >= 800, "requests served: " + ok.get());
        for (int i = 0; i < 3; i++) {
            assertTrue(!server(i).received().isEmpty(), "server " + server(i).name() + " took requests");
        }
    }

    @Test
    void anUnchangedGroupKeepsItsPoolAndItsIdleConnection() throws Exception {
        try (TestUpstream upstream = TestUpstream.start()) {
            String kept = route("/", upstream.url(""));
            proxy = ProxyHarness.start(routes(kept));
            assertEquals(200, get("/status/200").statusCode());
            UpstreamPool pool = proxy.kodiak().upstreams().pools().get(0);
            await(() -> pool.idleConnections() == 1, "the connection back in the pool");

            proxy.reload(routes(kept, route("/b/", server(1).url())) + "proxy.listener.max-body-size = 1m\n");

            assertSame(pool, proxy.kodiak().upstreams().groupFor(proxy.kodiak().generation().router().match(null, "/x"))
                    .servers().get(0).pool());
            assertEquals(1, pool.idleConnections(), "the idle connection stays pooled");
            assertEquals(200, get("/status/200").statusCode());
            assertEquals(1, upstream.acceptedConnections(), "the second request reused the pooled connection");
        }
    }

    @Test
    void aChangedGroupKeepsThePoolsOfTheServersItKeeps() throws Exception {
        proxy = ProxyHarness.start(group(server(0).url(), server(1).url()) + routes(route("/", "http://app")));
        UpstreamPool first = proxy.kodiak().upstreams().pools().get(0);
        UpstreamPool second = proxy.kodiak().upstreams().pools().get(1);

        proxy.reload(group(server(0).url(), server(2).url()) + routes(route("/", "http://app")));

        List<UpstreamPool> now = proxy.kodiak().upstreams().pools();
        assertSame(first, now.get(0), "server a stays, with its pool");
        assertNotSame(second, now.get(1), "server c is new");
        Map<String, Integer> seen = new ConcurrentHashMap<>();
        for (int i = 0; i < 6; i++) {
            seen.merge(get("/n").body(), 1, Integer::sum);
        }
        assertEquals(Map.of("a", 3, "c", 3), seen, "round-robin over the new servers");
        int before = server(1).received().size();
        assertEquals(0, before, "b got nothing after it was removed");
    }

    /**
     * A reload that changes a group's health rules keeps what the checks found: a server found
     * DOWN stays out of rotation under the new rules until it passes their checks, and gets no
     * request meanwhile (it used to start UP again, and the next request went to it).
     */
    @Test
    void aServerFoundDownStaysDownWhenAReloadChangesTheHealthRules() throws Exception {
        String before = "proxy.upstreams.app.health-check { path = \"/health\", interval = 200ms, timeout = 150ms, fall = 1, rise = 2 }\n";
        String after = "proxy.upstreams.app.health-check { path = \"/health\", interval = 300ms, timeout = 150ms, fall = 1, rise = 2 }\n"
                + "proxy.upstreams.app.passive { max-fails = 5 }\n";
        proxy = ProxyHarness.start(group(server(0).url(), server(1).url()) + before + routes(route("/", "http://app")));
        server(1).healthAnswers(503);
        await(() -> proxy.kodiak().upstreams().groups().iterator().next().servers().get(1).status() == io.kodiak.upstream.UpstreamServer.Status.DOWN,
                "b to be found DOWN");

        proxy.reload(group(server(0).url(), server(1).url()) + after + routes(route("/", "http://app")));

        assertEquals(io.kodiak.upstream.UpstreamServer.Status.DOWN, proxy.kodiak().upstreams().groups().iterator().next().servers().get(1).status(),
                "b stays DOWN under the new rules");
        int atReload = server(1).received().size();
        for (int i = 0; i < 6; i++) {
            assertEquals("a", get("/n").body());
        }
        assertEquals(atReload, server(1).received().size(), "b got no request while DOWN");
        server(1).healthAnswers(200);
        await(() -> proxy.kodiak().upstreams().groups().iterator().next().servers().get(1).status() == io.kodiak.upstream.UpstreamServer.Status.UP,
                "b to pass the new rules' checks");
    }

    @Test
    void aRemovedServerIsNoLongerHealthChecked() throws Exception {
        String check = "proxy.upstreams.app.health-check { path = \"/health\", interval = 200ms, timeout = 150ms }\n";
        proxy = ProxyHarness.start(group(server(0).url(), server(1).url()) + check + routes(route("/", "http://app")));
        await(() -> server(1).healthChecks().size() >= 2, "b to be checked");

        proxy.reload(group(server(0).url(), server(2).url()) + check + routes(route("/", "http://app")));
        await(() -> server(2).healthChecks().size() >= 2, "the new server c to be checked");
        int checksOfB = server(1).healthChecks().size();
        int checksOfA = server(0).healthChecks().size();
        await(() -> server(0).healthChecks().size() >= checksOfA + 3, "a, kept, to go on being checked");
        // At most the check that was under way when the reload came.
        assertTrue(server(1).healthChecks().size() <= checksOfB + 1, "b, removed, is checked no more");
    }

    @Test
    void limitsAndTimeoutsApplyToTheNextExchange() throws Exception {
        try (TestUpstream upstream = TestUpstream.start()) {
            String base = routes(route("/", upstream.url("")));
            proxy = ProxyHarness.start(base);
            String body = "x".repeat(100);
            HttpRequest post = HttpRequest.newBuilder(proxy.uri("/echo"))
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build();
            assertEquals(200, client.send(post, HttpResponse.BodyHandlers.ofString()).statusCode());
            assertEquals(200, get("/slow/700").statusCode());

            proxy.reload(base + "proxy.listener.max-body-size = 10\nproxy.upstream.response-timeout = 300ms\n");

            assertEquals(413, client.send(post, HttpResponse.BodyHandlers.ofString()).statusCode());
            assertEquals(504, get("/slow/700").statusCode());
        }
    }

    @Test
    void theListenerMovesToAnotherPortAndTheOldConnectionsFinish() throws Exception {
        proxy = ProxyHarness.start(routes(route("/", server(0).url())));
        int oldPort = proxy.port();
        int newPort;
        try (ServerSocket probe = new ServerSocket(0)) {
            newPort = probe.getLocalPort();
        }
        try (RawHttp open = new RawHttp(oldPort)) {
            open.send("GET /before HTTP/1.1\r\nHost: h\r\n\r\n");
            assertEquals("a", open.read().bodyText());

            proxy.reload("proxy.listener.port = " + newPort + "\n" + routes(route("/", server(1).url())));

            assertEquals(newPort, proxy.port());
            try (RawHttp moved = new RawHttp(newPort)) {
                moved.send("GET /new HTTP/1.1\r\nHost: h\r\n\r\n");
                assertEquals("b", moved.read().bodyText());
                assertEquals(2, proxy.kodiak().listener().openConnections(),
                        "the new address's connection counts against the limit beside the old one's");
            }
            // The connection accepted on the old port goes on (under the new routes).
            open.send("GET /still HTTP/1.1\r\nHost: h\r\n\r\n");
            RawHttp.Response still = open.read();
            assertEquals(200, still.status());
            assertEquals("b", still.bodyText());
        }
        // The socket closes on its selector's next turn, moments after the reload returned.
        await(() -> refuses(oldPort), "the old port to stop accepting");
    }

    private static boolean refuses(int port) {
        try (java.net.Socket ignored = new java.net.Socket("127.0.0.1", port)) {
            return false;
        } catch (ConnectException refused) {
            return true;
        } catch (IOException other) {
            return false;
        }
    }

    @Test
    void anAddressThatCannotBeBoundRefusesTheReloadAndNothingChanges() throws Exception {
        proxy = ProxyHarness.start(routes(route("/", server(0).url())));
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            ReloadRefusedException refused = assertThrows(ReloadRefusedException.class, () -> proxy.reload(
                    "proxy.listeners = [ { port = " + taken.getLocalPort() + " } ]\n" + routes(route("/", server(1).url()))));
            assertTrue(refused.getMessage().contains("proxy.listeners[0] 127.0.0.1:" + taken.getLocalPort()),
                    refused.getMessage());
        }
        assertEquals(1, proxy.kodiak().generation().number());
        assertEquals("a", get("/still-a").body());
    }
}
