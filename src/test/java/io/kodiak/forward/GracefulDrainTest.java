package io.kodiak.forward;

import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import io.kodiak.support.TestUpstream;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.kodiak.support.Await.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Stop drains: no new connections, in-flight exchanges finish, then the proxy exits well before the grace period. */
class GracefulDrainTest {

    private static boolean accepts(int port) {
        try (Socket ignored = io.kodiak.support.TestTls.connect(port)) {
            return true;
        } catch (IOException refused) {
            return false;
        }
    }

    @Test
    void inFlightExchangeCompletesWhileNewConnectionsAreRefused() throws Exception {
        try (TestUpstream upstream = TestUpstream.start()) {
            ProxyHarness proxy = ProxyHarness.forUpstream(upstream.url("/"), "proxy.shutdown.grace-period = 20s");
            int port = proxy.port();
            try (RawHttp inFlight = new RawHttp(port)) {
                inFlight.send("GET /hold HTTP/1.1\r\nHost: a\r\n\r\n");
                await(() -> upstream.holds() == 1, "the request to reach the upstream");

                CompletableFuture<Void> stopping = CompletableFuture.runAsync(proxy::close);
                await(() -> !accepts(port), "the listener to stop accepting");
                assertFalse(stopping.isDone(), "stop must wait for the exchange in flight");

                upstream.release();
                RawHttp.Response response = inFlight.read();
                assertEquals(200, response.status());
                assertEquals("held ok", response.bodyText());
                assertEquals("close", response.header("connection"), "a draining proxy tells keep-alive clients to go");
                stopping.get(10, TimeUnit.SECONDS);
            }
        }
    }

    /** Past the grace period the stop cuts what is left: counted as the stop's doing, not the client's (499). */
    @Test
    void anExchangeCutAtTheEndOfTheGracePeriodIsTheStopsDoing() throws Exception {
        try (TestUpstream upstream = TestUpstream.start()) {
            ProxyHarness proxy = ProxyHarness.forUpstream(upstream.url("/"), "proxy.shutdown.grace-period = 1s");
            try (RawHttp inFlight = new RawHttp(proxy.port())) {
                inFlight.send("GET /hold HTTP/1.1\r\nHost: a\r\n\r\n");
                await(() -> upstream.holds() == 1, "the request to reach the upstream");
                proxy.close();
                assertTrue(inFlight.closedByPeer(), "the connection closed at the end of the grace period");
                java.util.Map<String, Long> errors = proxy.kodiak().services().errorCounts();
                assertEquals(1L, errors.getOrDefault("stopped", 0L), errors.toString());
                assertEquals(0L, errors.getOrDefault(io.kodiak.exchange.ProxyError.CLIENT_ABORT, 0L), errors.toString());
            } finally {
                upstream.release();
            }
        }
    }
}
