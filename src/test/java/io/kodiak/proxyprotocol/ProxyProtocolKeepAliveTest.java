package io.kodiak.proxyprotocol;

import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import io.kodiak.upstream.UpstreamPool;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import java.util.Set;

import static io.kodiak.support.Await.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * proxy.upstream.proxy-protocol with keep-alive: an upstream connection that sent a client
 * connection's PROXY header is kept for that client connection's next exchanges, and for no other
 * client connection's, whatever addresses they carry.
 */
class ProxyProtocolKeepAliveTest {
    private static final String CARRIED = "PROXY TCP4 203.0.113.7 192.0.2.1 51234 443\r\n";
    private static final ProxyHeader CARRIED_HEADER = new ProxyHeader(new InetSocketAddress("203.0.113.7", 51234),
            new InetSocketAddress("192.0.2.1", 443));

    private static ProxyHarness proxy(PrivateUpstream upstream, String version, String extra) throws Exception {
        return ProxyHarness.forUpstream(upstream.url(), "proxy.upstream.proxy-protocol = \"" + version + "\"\n"
                + "proxy.listeners = [ { port = 0, proxy-protocol = true } ]\n" + extra);
    }

    private static RawHttp behindBalancer(ProxyHarness proxy) throws Exception {
        return new RawHttp(new Socket("127.0.0.1", proxy.kodiak().listener().port(1)));
    }

    private static String get(RawHttp client, String path, String who) throws Exception {
        client.send("GET " + path + " HTTP/1.1\r\nHost: a\r\nX-Client: " + who + "\r\n\r\n");
        RawHttp.Response response = client.read();
        assertEquals(200, response.status(), path);
        return response.bodyText();
    }

    private static UpstreamPool pool(ProxyHarness proxy) {
        return proxy.kodiak().upstreams().pools().get(0);
    }

    /** Every upstream connection carried the requests of one client connection at most. */
    private static void eachConnectionServedOneClient(PrivateUpstream upstream) {
        for (PrivateUpstream.Seen seen : upstream.connections) {
            assertTrue(seen.clients.size() <= 1, seen.toString());
        }
        assertEquals(List.of(), upstream.failures);
    }

    @Test
    void keepAliveRequestsOfOneClientConnectionShareOneUpstreamConnectionAndOneHeader() throws Exception {
        for (String version : new String[]{"v1", "v2"}) {
            try (PrivateUpstream upstream = new PrivateUpstream(); ProxyHarness proxy = proxy(upstream, version, "")) {
                try (RawHttp client = behindBalancer(proxy)) {
                    client.send(CARRIED);
                    String first = get(client, "/a", "A");
                    String second = get(client, "/b", "A");
                    String third = get(client, "/c", "A");
                    assertEquals(first, second, version);
                    assertEquals(first, third, version);
                    assertEquals(1, upstream.connections.size(), upstream.connections.toString());
                    PrivateUpstream.Seen seen = upstream.connections.get(0);
                    assertEquals(CARRIED_HEADER, seen.header, version);
                    assertEquals(List.of("/a", "/b", "/c"), seen.paths, version);
                    // Idle between requests, and counted so (kept just after the answer went out).
                    await(() -> pool(proxy).idleConnections() == 1, "the kept connection counted idle");
                    assertEquals(1, pool(proxy).openConnections(), version);
                    assertEquals(0, pool(proxy).leasedConnections(), version);
                }
                // The client connection closed: its upstream connection closes with it.
                await(() -> upstream.connections.get(0).closedByProxy, "the upstream connection closed after its client");
                await(() -> pool(proxy).openConnections() == 0 && pool(proxy).idleConnections() == 0,
                        "no connection left open or idle");
                eachConnectionServedOneClient(upstream);
            }
        }
    }

    @Test
    void twoClientConnectionsWithTheSameAddressesNeverShareAnUpstreamConnection() throws Exception {
        try (PrivateUpstream upstream = new PrivateUpstream(); ProxyHarness proxy = proxy(upstream, "v2", "");
             RawHttp a = behindBalancer(proxy); RawHttp b = behindBalancer(proxy)) {
            // The same carried addresses on both: the connection, not the addresses, is the client.
            a.send(CARRIED);
            b.send(CARRIED);
            String a1 = get(a, "/a1", "A");
            String b1 = get(b, "/b1", "B");
            String a2 = get(a, "/a2", "A");
            String b2 = get(b, "/b2", "B");
            assertEquals(a1, a2);
            assertEquals(b1, b2);
            assertNotEquals(a1, b1);
            assertEquals(2, upstream.connections.size(), upstream.connections.toString());
            for (PrivateUpstream.Seen seen : upstream.connections) {
                assertEquals(CARRIED_HEADER, seen.header);
                assertEquals(2, seen.paths.size(), seen.toString());
            }
            eachConnectionServedOneClient(upstream);
            assertEquals(Set.of("A"), upstream.connections.stream().filter(c -> c.paths.contains("/a1")).findFirst()
                    .orElseThrow().clients);
        }
    }

    /** The same under every I/O strategy, with several loops: kept, reused and closed each on its client's loop. */
    @Test
    void everyIoStrategyKeepsEachConnectionOnItsClientsLoop() throws Exception {
        long straysBefore = io.kodiak.loop.EventLoops.strays();
        for (String strategy : new String[]{"same-thread", "dynamic", "worker-thread"}) {
            try (PrivateUpstream upstream = new PrivateUpstream();
                 ProxyHarness proxy = proxy(upstream, "v2", "proxy.listener.io-strategy = \"" + strategy + "\"\n"
                         + "proxy.listener.selector-threads = 3\nproxy.listener.worker-threads = 4\n")) {
                List<RawHttp> clients = new java.util.ArrayList<>();
                try {
                    for (int i = 0; i < 4; i++) {
                        RawHttp client = behindBalancer(proxy);
                        client.send(CARRIED);
                        clients.add(client);
                    }
                    for (int round = 0; round < 3; round++) {
                        for (int i = 0; i < clients.size(); i++) {
                            get(clients.get(i), "/r" + round, "C" + i);
                        }
                    }
                    assertEquals(4, upstream.connections.size(), strategy + ": " + upstream.connections);
                    eachConnectionServedOneClient(upstream);
                } finally {
                    for (RawHttp client : clients) {
                        client.close();
                    }
                }
                await(() -> upstream.connections.stream().allMatch(c -> c.closedByProxy), strategy + ": all closed with their clients");
                await(() -> pool(proxy).openConnections() == 0 && pool(proxy).idleConnections() == 0, strategy + ": none left");
            }
        }
        assertEquals(straysBefore, io.kodiak.loop.EventLoops.strays(), "no event off its owning loop");
    }

    @Test
    void directClientsToo() throws Exception {
        try (PrivateUpstream upstream = new PrivateUpstream(); ProxyHarness proxy = proxy(upstream, "v1", "")) {
            Socket one = new Socket("127.0.0.1", proxy.port());
            Socket two = new Socket("127.0.0.1", proxy.port());
            try (RawHttp a = new RawHttp(one); RawHttp b = new RawHttp(two)) {
                get(a, "/a1", "A");
                get(b, "/b1", "B");
                get(a, "/a2", "A");
                get(b, "/b2", "B");
            }
            assertEquals(2, upstream.connections.size(), upstream.connections.toString());
            for (PrivateUpstream.Seen seen : upstream.connections) {
                int port = seen.clients.contains("A") ? one.getLocalPort() : two.getLocalPort();
                assertEquals(new ProxyHeader(new InetSocketAddress("127.0.0.1", port),
                        new InetSocketAddress("127.0.0.1", proxy.port())), seen.header, seen.toString());
            }
            eachConnectionServedOneClient(upstream);
            await(() -> upstream.connections.stream().allMatch(c -> c.closedByProxy), "both closed after their clients");
        }
    }

    @Test
    void anUpstreamConnectionTheServerClosedIsReplacedByANewOneWithItsOwnHeader() throws Exception {
        try (PrivateUpstream upstream = new PrivateUpstream(); ProxyHarness proxy = proxy(upstream, "v2", "");
             RawHttp client = behindBalancer(proxy)) {
            client.send(CARRIED);
            String first = get(client, "/close-soon", "A");
            await(() -> pool(proxy).openConnections() == 0, "Kodiak saw the server close its idle connection");
            assertEquals(0, pool(proxy).idleConnections());
            String second = get(client, "/again", "A");
            assertNotEquals(first, second);
            assertEquals(2, upstream.connections.size(), upstream.connections.toString());
            assertEquals(CARRIED_HEADER, upstream.connections.get(1).header);
            assertEquals(List.of("/again"), upstream.connections.get(1).paths);
            eachConnectionServedOneClient(upstream);
        }
    }

    @Test
    void aKeptConnectionClosesAfterTheUpstreamIdleTimeoutWhileItsClientStays() throws Exception {
        try (PrivateUpstream upstream = new PrivateUpstream();
             ProxyHarness proxy = proxy(upstream, "v1", "proxy.upstream.idle-timeout = 300ms\n");
             RawHttp client = behindBalancer(proxy)) {
            client.send(CARRIED);
            String first = get(client, "/a", "A");
            await(() -> upstream.connections.get(0).closedByProxy, "the idle kept connection closed by Kodiak");
            await(() -> pool(proxy).openConnections() == 0 && pool(proxy).idleConnections() == 0, "nothing left open");
            String second = get(client, "/b", "A");
            assertNotEquals(first, second);
            assertEquals(2, upstream.connections.size());
            assertEquals(CARRIED_HEADER, upstream.connections.get(1).header);
            eachConnectionServedOneClient(upstream);
        }
    }

    @Test
    void aReloadThatRetiresTheServerClosesTheConnectionsKeptForIt() throws Exception {
        try (PrivateUpstream upstream = new PrivateUpstream(); PrivateUpstream next = new PrivateUpstream();
             ProxyHarness proxy = proxy(upstream, "v2", "");
             RawHttp client = behindBalancer(proxy)) {
            client.send(CARRIED);
            get(client, "/a", "A");
            UpstreamPool retired = pool(proxy);
            await(() -> retired.idleConnections() == 1, "kept");
            proxy.reload("proxy.routes = [ { prefix = \"/\", upstream = \"" + next.url() + "\" } ]\n"
                    + "proxy.upstream.proxy-protocol = \"v2\"\nproxy.listeners = [ { port = 0, proxy-protocol = true } ]\n");
            await(() -> upstream.connections.get(0).closedByProxy, "the kept connection closed with its retired pool");
            await(() -> retired.openConnections() == 0 && retired.idleConnections() == 0, "nothing left in the retired pool");
            get(client, "/b", "A");
            assertEquals(CARRIED_HEADER, next.connections.get(0).header);
            assertEquals(List.of("/a"), upstream.connections.get(0).paths);
        }
    }

    /** An HTTP/2 client connection's streams: one after another on one kept connection; at once, one kept afterwards. */
    @Test
    void anHttp2ClientConnectionsStreamsShareItsKeptConnection() throws Exception {
        try (PrivateUpstream upstream = new PrivateUpstream(); ProxyHarness proxy = proxy(upstream, "v2", "");
             io.kodiak.support.H2Client h2 = io.kodiak.support.H2Client.connect(proxy.port());
             io.kodiak.support.H2Client other = io.kodiak.support.H2Client.connect(proxy.port())) {
            for (int i = 0; i < 3; i++) {
                assertEquals(200, h2.response(h2.request("GET", "/s" + i, null, "x-client", "H")).status());
            }
            assertEquals(1, upstream.connections.size(), upstream.connections.toString());
            assertEquals(List.of("/s0", "/s1", "/s2"), upstream.connections.get(0).paths);
            assertEquals(200, other.response(other.request("GET", "/o", null, "x-client", "O")).status());
            assertEquals(2, upstream.connections.size(), upstream.connections.toString());
            // Two streams at once: each its own connection, one of them kept afterwards.
            int first = h2.request("GET", "/c1", null, "x-client", "H");
            int second = h2.request("GET", "/c2", null, "x-client", "H");
            assertEquals(200, h2.response(first).status());
            assertEquals(200, h2.response(second).status());
            await(() -> pool(proxy).idleConnections() == 2 && pool(proxy).openConnections() == 2,
                    () -> "one kept per client connection: " + pool(proxy).idleConnections() + " idle, "
                            + pool(proxy).openConnections() + " open, " + upstream.connections);
            eachConnectionServedOneClient(upstream);
        }
    }

    /** With max-connections spent, a kept connection gives its place to another client's request. */
    @Test
    void aKeptConnectionGivesItsPlaceUpWhenAnotherClientWaitsForMaxConnections() throws Exception {
        try (PrivateUpstream upstream = new PrivateUpstream();
             ProxyHarness proxy = proxy(upstream, "v2", "proxy.upstream.max-connections = 1\n"
                     + "proxy.upstream.connect-timeout = 3s\n");
             RawHttp a = behindBalancer(proxy); RawHttp b = behindBalancer(proxy)) {
            a.send(CARRIED);
            b.send("PROXY TCP4 198.51.100.9 192.0.2.1 40000 443\r\n");
            get(a, "/a", "A");
            await(() -> pool(proxy).idleConnections() == 1, "kept for A");
            long started = System.nanoTime();
            get(b, "/b", "B");
            assertTrue(System.nanoTime() - started < 2_000_000_000L, "B did not wait out the connect-timeout");
            await(() -> upstream.connections.get(0).closedByProxy, "A's kept connection closed for B");
            assertEquals(2, upstream.connections.size());
            // A again: B's connection is kept for B, so A's request waits for it in turn.
            get(a, "/a2", "A");
            eachConnectionServedOneClient(upstream);
            assertTrue(proxy.kodiak().upstreams().pools().get(0).mostOpenAtOnce() <= 1);
        }
    }

    @Test
    void persistentConnectionsOffKeepsNothing() throws Exception {
        try (PrivateUpstream upstream = new PrivateUpstream();
             ProxyHarness proxy = proxy(upstream, "v2", "proxy.upstream.persistent-connections = false\n");
             RawHttp client = behindBalancer(proxy)) {
            client.send(CARRIED);
            get(client, "/a", "A");
            get(client, "/b", "A");
            assertEquals(2, upstream.connections.size());
            assertEquals(0, pool(proxy).idleConnections());
        }
    }

    /**
     * Health checks open connections of their own with a header naming nobody (LOCAL), which never
     * carry a client's request; clients' connections never carry a check, whoever else is served.
     */
    @Test
    void healthChecksAndRetriesNeverShareAClientsConnection() throws Exception {
        try (PrivateUpstream one = new PrivateUpstream(); PrivateUpstream two = new PrivateUpstream();
             ProxyHarness proxy = ProxyHarness.start("proxy.upstream.proxy-protocol = \"v2\"\n"
                     + "proxy.listeners = [ { port = 0, proxy-protocol = true } ]\n"
                     + "proxy.upstreams.g { servers = [\"" + one.url() + "\", \"" + two.url() + "\"],"
                     + " health-check { path = \"/health\", interval = 100ms, timeout = 100ms },"
                     + " retry { attempts = 2, on = [\"503\"] } }\n"
                     + "proxy.routes = [ { prefix = \"/\", upstream = \"http://g/\" } ]\n");
             RawHttp a = behindBalancer(proxy); RawHttp b = behindBalancer(proxy)) {
            a.send(CARRIED);
            b.send("PROXY TCP4 198.51.100.9 192.0.2.1 40000 443\r\n");
            for (int i = 0; i < 6; i++) {
                get(a, "/a" + i, "A");
                get(b, "/b" + i, "B");
            }
            // Retried on the other server: on a connection carrying this client's header there.
            one.refusesRetries = true;
            two.refusesRetries = false;
            for (int i = 0; i < 3; i++) {
                get(a, "/retry-me-a" + i, "A");
                get(b, "/retry-me-b" + i, "B");
            }
            await(() -> one.connections.stream().anyMatch(c -> c.paths.contains("/health"))
                    && two.connections.stream().anyMatch(c -> c.paths.contains("/health")), "health checks on both");
            for (PrivateUpstream server : List.of(one, two)) {
                eachConnectionServedOneClient(server);
                for (PrivateUpstream.Seen seen : server.withRequests()) {
                    boolean checks = seen.paths.contains("/health");
                    if (checks) {
                        assertEquals(ProxyHeader.LOCAL, seen.header, seen.toString());
                        assertEquals(List.of("/health"), seen.paths, seen.toString());
                    } else {
                        assertEquals(seen.clients.contains("A") ? CARRIED_HEADER
                                : new ProxyHeader(new InetSocketAddress("198.51.100.9", 40000),
                                new InetSocketAddress("192.0.2.1", 443)), seen.header, seen.toString());
                    }
                }
            }
            // The plain requests: one connection per (client connection, server), kept between them.
            // (A 503 that is retried elsewhere is dropped unread, and its connection with it.)
            for (PrivateUpstream server : List.of(one, two)) {
                for (String client : List.of("/a", "/b")) {
                    assertTrue(server.connections.stream().filter(c -> c.paths.stream()
                            .anyMatch(p -> p.matches(client + "[0-9]"))).count() <= 1, server.connections.toString());
                }
            }
            assertTrue(two.connections.stream().anyMatch(c -> c.paths.stream().anyMatch(p -> p.startsWith("/retry-me-a"))
                    && c.header.equals(CARRIED_HEADER)), two.connections.toString());
        }
    }
}
