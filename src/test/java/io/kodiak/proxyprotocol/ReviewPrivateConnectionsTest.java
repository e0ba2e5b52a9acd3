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
 * REVIEW (failing on purpose, 2026-11-29): findings of the independent review of 68b2907..d43f591.
 * Not a fix; each test shows one defect.
 */
class ReviewPrivateConnectionsTest {
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
}
