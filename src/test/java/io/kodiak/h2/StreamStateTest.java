package io.kodiak.h2;

import org.junit.jupiter.api.Test;

import static io.kodiak.h2.StreamState.CLOSED;
import static io.kodiak.h2.StreamState.HALF_CLOSED_LOCAL;
import static io.kodiak.h2.StreamState.HALF_CLOSED_REMOTE;
import static io.kodiak.h2.StreamState.OPEN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** RFC 9113 §5.1 as a server's stream goes through it: each end once, in either order. */
class StreamStateTest {
    @Test
    void eachSideEndsOnceInEitherOrder() {
        assertEquals(HALF_CLOSED_REMOTE, OPEN.remoteEnded());
        assertEquals(HALF_CLOSED_LOCAL, OPEN.localEnded());
        assertEquals(CLOSED, HALF_CLOSED_REMOTE.localEnded());
        assertEquals(CLOSED, HALF_CLOSED_LOCAL.remoteEnded());
        assertThrows(IllegalStateException.class, HALF_CLOSED_REMOTE::remoteEnded);
        assertThrows(IllegalStateException.class, HALF_CLOSED_LOCAL::localEnded);
        assertThrows(IllegalStateException.class, CLOSED::remoteEnded);
        assertThrows(IllegalStateException.class, CLOSED::localEnded);
    }

    @Test
    void whoMayStillSend() {
        assertTrue(OPEN.receives() && OPEN.sends());
        assertTrue(HALF_CLOSED_REMOTE.sends() && !HALF_CLOSED_REMOTE.receives());
        assertTrue(HALF_CLOSED_LOCAL.receives() && !HALF_CLOSED_LOCAL.sends());
        assertFalse(CLOSED.receives() || CLOSED.sends());
    }
}
