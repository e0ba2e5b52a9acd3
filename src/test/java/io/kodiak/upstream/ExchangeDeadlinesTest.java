package io.kodiak.upstream;

import io.kodiak.http.ResponseHead;
import io.kodiak.http.Violation;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.utils.DelayedExecutor;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The timer's view of an upstream connection: a deadline fires once, only if nobody moved it
 * after the timer read it, and a closed connection's entry leaves the timer queue for good, even
 * when the exchange that used it disarms its deadline afterwards.
 */
class ExchangeDeadlinesTest {
    private static final class CountingListener implements ResponseListener {
        int deadlines;

        @Override
        public boolean requestWasHead() {
            throw new AssertionError("not used");
        }

        @Override
        public boolean upgradeRequested() {
            throw new AssertionError("not used");
        }

        @Override
        public boolean onInterimResponse(UpstreamConnection from, ResponseHead head) {
            throw new AssertionError("not used");
        }

        @Override
        public boolean onResponseHead(UpstreamConnection from, ResponseHead head, Buffer firstPiece) {
            throw new AssertionError("not used");
        }

        @Override
        public boolean onResponseBody(UpstreamConnection from, Buffer piece) {
            throw new AssertionError("not used");
        }

        @Override
        public void onResponseEnd(UpstreamConnection from, ResponseHead head, Buffer lastPiece, boolean reusable) {
            throw new AssertionError("not used");
        }

        @Override
        public boolean onTunnelBytes(UpstreamConnection from, Buffer bytes) {
            throw new AssertionError("not used");
        }

        @Override
        public void onInvalidResponse(UpstreamConnection from, Violation violation) {
            throw new AssertionError("not used");
        }

        @Override
        public void onUpstreamClosed(UpstreamConnection from) {
            throw new AssertionError("not used");
        }

        @Override
        public void onDeadline(UpstreamConnection from) {
            deadlines++;
        }
    }

    private final ExchangeDeadlines.Expiry expiry = new ExchangeDeadlines.Expiry();

    @Test
    void aPassedDeadlineFiresOnceAndTheEntryStaysForTheNextExchange() {
        UpstreamConnection connection = new UpstreamConnection();
        CountingListener listener = new CountingListener();
        connection.bind(listener);
        connection.setDeadline(System.currentTimeMillis() - 1);
        assertFalse(expiry.doWork(connection), "stays queued");
        assertEquals(1, listener.deadlines);
        assertEquals(UpstreamConnection.NO_DEADLINE, connection.deadline());
    }

    @Test
    void aDeadlineMovedAfterTheScanDoesNotFire() {
        UpstreamConnection connection = new UpstreamConnection();
        CountingListener listener = new CountingListener();
        connection.bind(listener);
        long later = System.currentTimeMillis() + 60_000;
        connection.setDeadline(later);
        assertFalse(expiry.doWork(connection));
        assertEquals(0, listener.deadlines);
        assertEquals(later, connection.deadline());
    }

    @Test
    void aClosedConnectionLeavesTheQueueWhateverTheExchangeDoesAfterwards() {
        UpstreamConnection connection = new UpstreamConnection();
        CountingListener listener = new CountingListener();
        connection.bind(listener);
        connection.setDeadline(System.currentTimeMillis() + 60_000);
        connection.closed();
        // The exchange hears of the close after the fact and disarms, or re-arms on its way out.
        connection.setDeadline(UpstreamConnection.NO_DEADLINE);
        connection.setDeadline(System.currentTimeMillis() - 1);
        assertEquals(DelayedExecutor.UNSET_TIMEOUT, connection.deadline());
        assertTrue(expiry.doWork(connection), "leaves the queue");
        assertEquals(0, listener.deadlines);
    }
}
