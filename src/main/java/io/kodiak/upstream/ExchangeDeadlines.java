package io.kodiak.upstream;

import io.kodiak.transport.Deadline;
import org.glassfish.grizzly.utils.DelayedExecutor;

import java.util.concurrent.TimeUnit;

/**
 * The clock of exchanges in progress: the exchange using an upstream connection sets a deadline
 * whenever it makes progress (response-timeout once the request is sent, idle-timeout while a
 * body moves), and hears {@link ResponseListener#onDeadline} when one passes.
 *
 * <p>Deadlines live on the upstream connection, not the exchange: a connection carries one
 * exchange at a time, joins the timer queue once, and each refresh only writes a field. (Grizzly's
 * DelayQueue removes entries lazily, on its next scan, so queueing every exchange would keep each
 * finished exchange reachable until then.)
 */
public final class ExchangeDeadlines {
    private final DelayedExecutor.DelayQueue<UpstreamConnection> queue;

    public ExchangeDeadlines(DelayedExecutor timers) {
        this.queue = timers.createDelayQueue(new Expiry(), Deadline.resolver(UpstreamConnection::deadlineHolder));
    }

    /** The exchange on {@code connection} must make progress within {@code millis}. */
    public void arm(UpstreamConnection connection, long millis) {
        if (connection.enterTimerQueue()) {
            queue.add(connection, millis, TimeUnit.MILLISECONDS);
        } else {
            connection.setDeadline(System.currentTimeMillis() + millis);
        }
    }

    public void disarm(UpstreamConnection connection) {
        connection.setDeadline(UpstreamConnection.NO_DEADLINE);
    }

    /** Fires a passed deadline, unless the exchange made progress (re-armed) after the timer's scan read it. */
    static final class Expiry implements DelayedExecutor.Worker<UpstreamConnection> {
        @Override
        public boolean doWork(UpstreamConnection connection) {
            long deadline = connection.deadline();
            if (deadline == DelayedExecutor.UNSET_TIMEOUT) {
                return true;
            }
            if (System.currentTimeMillis() - deadline < 0 || !connection.clearExpired(deadline)) {
                return false;
            }
            ResponseListener listener = connection.listener();
            if (listener != null) {
                listener.onDeadline(connection);
            }
            // Stay queued: the connection may carry another exchange (a timed-out one discards it anyway).
            return false;
        }
    }
}
