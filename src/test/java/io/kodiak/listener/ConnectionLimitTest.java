package io.kodiak.listener;

import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import io.kodiak.support.TestUpstream;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** proxy.listener.max-connections: at the limit new clients wait, unserved but not refused, until a connection closes. */
class ConnectionLimitTest {
    private static final String REQUEST = "GET /bytes/10 HTTP/1.1\r\nHost: a\r\n\r\n";

    @Test
    void beyondTheLimitAClientWaitsForAConnectionToClose() throws Exception {
        try (TestUpstream upstream = TestUpstream.start();
             ProxyHarness proxy = ProxyHarness.forUpstream(upstream.url("/"), "proxy.listener.max-connections = 2");
             RawHttp first = new RawHttp(proxy.port())) {
            ProxyListener listener = proxy.kodiak().listener();
            assertEquals(200, first.send(REQUEST).read().status());
            assertEquals(1, listener.openConnections());
            assertFalse(listener.acceptPaused(), "one connection of two");
            try (RawHttp second = new RawHttp(proxy.port())) {
                assertEquals(200, second.send(REQUEST).read().status());
                assertEquals(2, listener.openConnections());
                assertTrue(listener.acceptPaused());

                // The TCP handshake completes in the kernel's listen queue; the proxy does not take the connection yet.
                try (RawHttp third = new RawHttp(proxy.port())) {
                    third.send(REQUEST);
                    assertEquals(2, listener.openConnections());
                    assertEquals(1, listener.acceptPauses());

                    first.close();
                    assertEquals(200, third.read().status());
                    assertEquals(2, listener.openConnections());
                    assertTrue(listener.acceptPaused(), "full again with the third client");
                    // The ordering, proven by a count rather than by a quiet moment: the listener pauses only when
                    // its count reaches the limit from below. A second pause means the count fell to 1 (first's
                    // close) before the third connection was accepted; accepted while paused, it would have made
                    // the count 3, first's close would have brought it back to 2, and there would be one pause.
                    assertEquals(2, listener.acceptPauses(), "the third client was accepted only after a connection closed");
                }
                assertEquals(200, second.send(REQUEST).read().status(), "connections within the limit keep being served");
            }
        }
    }
}
