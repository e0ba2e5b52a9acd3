package io.kodiak.proxyprotocol;

import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import io.kodiak.upstream.UpstreamPool;
import org.junit.jupiter.api.Test;

import java.net.Socket;

import static io.kodiak.support.Await.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Connections kept for their client connections (PROXY headers) never keep another client from a
 * connection: max-connections is judged by the server's connection budget alone, whose waiters
 * make kept connections give their place up, on one loop or several. (Found by the review of
 * 2026-11-29: each loop's Grizzly pool also capped them, and queued the next client where the
 * budget never saw it, until connect-timeout and a 503.)
 */
class PrivateConnectionsBudgetTest {
    private static RawHttp behindBalancer(ProxyHarness proxy) throws Exception {
        return new RawHttp(new Socket("127.0.0.1", proxy.kodiak().listener().port(1)));
    }

    private static UpstreamPool pool(ProxyHarness proxy) {
        return proxy.kodiak().upstreams().pools().get(0);
    }

    /**
     * The shipped test (aKeptConnectionGivesItsPlaceUp...) passes only because its two clients land
     * on two loops. On ONE loop, the loop's Grizzly SingleEndpointPool (maxPoolSize = max-connections)
     * counts the kept connection as busy and queues the take in its own waiting list without ever
     * calling ServerConnections' endpoint: budget.anyWait() stays false, nothing gives the kept
     * connection up, and B waits out connect-timeout (503), while A's connection sits idle for the
     * whole upstream idle-timeout.
     */
    @Test
    void onOneLoopAKeptConnectionNeverGivesItsPlaceUp() throws Exception {
        try (PrivateUpstream upstream = new PrivateUpstream();
             ProxyHarness proxy = ProxyHarness.forUpstream(upstream.url(), "proxy.upstream.proxy-protocol = \"v2\"\n"
                     + "proxy.listeners = [ { port = 0, proxy-protocol = true } ]\n"
                     + "proxy.listener.selector-threads = 1\n"
                     + "proxy.upstream.max-connections = 1\n"
                     + "proxy.upstream.connect-timeout = 2s\n");
             RawHttp a = behindBalancer(proxy); RawHttp b = behindBalancer(proxy)) {
            a.send("PROXY TCP4 203.0.113.7 192.0.2.1 51234 443\r\n");
            b.send("PROXY TCP4 198.51.100.9 192.0.2.1 40000 443\r\n");
            a.send("GET /a HTTP/1.1\r\nHost: a\r\nX-Client: A\r\n\r\n");
            assertEquals(200, a.read().status());
            await(() -> pool(proxy).idleConnections() == 1, "kept for A");
            long started = System.nanoTime();
            b.send("GET /b HTTP/1.1\r\nHost: a\r\nX-Client: B\r\n\r\n");
            RawHttp.Response answer = b.read();
            long tookMs = (System.nanoTime() - started) / 1_000_000;
            assertEquals(200, answer.status(), "B answered " + answer.status() + " after " + tookMs + " ms");
            assertTrue(tookMs < 1_500, "B waited " + tookMs + " ms for A's idle kept connection");
        }
    }

    /**
     * The same with two loops (the default on a 2-core box): accepted connections alternate between
     * the loops, so clients 1 and 3 share loop 1. Their two kept connections fill loop 1's Grizzly
     * pool (max-connections = 2) and client 5, on loop 1 too, waits out connect-timeout.
     */
    @Test
    void withTwoLoopsTheLoopHoldingEveryKeptConnectionStarvesItsNextClient() throws Exception {
        try (PrivateUpstream upstream = new PrivateUpstream();
             ProxyHarness proxy = ProxyHarness.forUpstream(upstream.url(), "proxy.upstream.proxy-protocol = \"v2\"\n"
                     + "proxy.listeners = [ { port = 0, proxy-protocol = true } ]\n"
                     + "proxy.listener.selector-threads = 2\n"
                     + "proxy.upstream.max-connections = 2\n"
                     + "proxy.upstream.connect-timeout = 2s\n")) {
            java.util.List<RawHttp> clients = new java.util.ArrayList<>();
            try {
                for (int i = 0; i < 5; i++) {
                    RawHttp client = behindBalancer(proxy);
                    client.send("PROXY TCP4 198.51.100." + (i + 1) + " 192.0.2.1 4000" + i + " 443\r\n");
                    clients.add(client);
                    // One accept at a time, so they alternate between the loops in this order.
                    Thread.sleep(100);
                }
                for (int i : new int[]{0, 2}) {
                    clients.get(i).send("GET /c" + i + " HTTP/1.1\r\nHost: a\r\nX-Client: C" + i + "\r\n\r\n");
                    assertEquals(200, clients.get(i).read().status());
                }
                await(() -> pool(proxy).idleConnections() == 2, "kept for clients 1 and 3");
                long started = System.nanoTime();
                clients.get(4).send("GET /c4 HTTP/1.1\r\nHost: a\r\nX-Client: C4\r\n\r\n");
                RawHttp.Response answer = clients.get(4).read();
                long tookMs = (System.nanoTime() - started) / 1_000_000;
                assertEquals(200, answer.status(), "client 5 answered " + answer.status() + " after " + tookMs + " ms");
            } finally {
                for (RawHttp client : clients) {
                    client.close();
                }
            }
        }
    }
}
