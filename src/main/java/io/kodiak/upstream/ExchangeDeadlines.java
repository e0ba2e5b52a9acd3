package io.kodiak.upstream;

import org.glassfish.grizzly.utils.DelayedExecutor;

import java.util.concurrent.TimeUnit;

/**
 * The response-timeout clock: from the request being sent to the first byte of the response.
 * Deadlines live on the upstream connection, not the exchange: a connection carries one exchange
 * at a time, joins the timer queue once, and each request only writes its deadline field.
 * (Grizzly's DelayQueue removes entries lazily, on its next scan, so queueing every exchange
 * would keep each finished exchange reachable until then.)
 */
public final class ResponseTimeouts {
    private final DelayedExecutor.DelayQueue<UpstreamConnection> queue;
    private final long timeoutMillis;

    public ResponseTimeouts(DelayedExecutor timers, long timeoutMillis) {
        this.timeoutMillis = timeoutMillis;
        this.queue = timers.createDelayQueue(new Expiry(), new Deadline());
    }

    public void start(UpstreamConnection connection) {
        if (connection.enterTimerQueue()) {
            queue.add(connection, timeoutMillis, TimeUnit.MILLISECONDS);
        } else {
            connection.responseDeadline = System.currentTimeMillis() + timeoutMillis;
        }
    }

    public void cancel(UpstreamConnection connection) {
        connection.responseDeadline = UpstreamConnection.NO_DEADLINE;
    }

    public long timeoutMillis() {
        return timeoutMillis;
    }

    private static final class Expiry implements DelayedExecutor.Worker<UpstreamConnection> {
        @Override
        public boolean doWork(UpstreamConnection connection) {
            connection.responseDeadline = UpstreamConnection.NO_DEADLINE;
            ResponseListener listener = connection.listener();
            if (listener != null) {
                listener.onResponseTimeout();
            }
            // Stay queued: the connection may carry another exchange (the one timed out discards it anyway).
            return false;
        }
    }

    private static final class Deadline implements DelayedExecutor.Resolver<UpstreamConnection> {
        @Override
        public boolean removeTimeout(UpstreamConnection connection) {
            connection.responseDeadline = DelayedExecutor.UNSET_TIMEOUT;
            return true;
        }

        @Override
        public long getTimeoutMillis(UpstreamConnection connection) {
            return connection.responseDeadline;
        }

        @Override
        public void setTimeoutMillis(UpstreamConnection connection, long timeoutMillis) {
            connection.responseDeadline = timeoutMillis;
        }
    }
}
