package io.kodiak.client;

import org.glassfish.grizzly.utils.DelayedExecutor;

import java.util.concurrent.TimeUnit;

/**
 * Closes client connections that stay idle: between requests, and while a request head is still
 * incomplete (a head must be whole within idle-timeout of the connection becoming idle, however
 * slowly its bytes drip). An exchange in progress stops the clock; its own deadlines apply.
 * Each connection joins the timer queue once; a refresh only writes a field.
 */
final class IdleClock {
    static final long NO_DEADLINE = Long.MAX_VALUE;
    private final DelayedExecutor.DelayQueue<ClientConnection> queue;
    private final long idleMillis;

    IdleClock(DelayedExecutor timers, long idleMillis) {
        this.queue = timers.createDelayQueue(new Expiry(), new Deadline());
        this.idleMillis = idleMillis;
    }

    void join(ClientConnection connection) {
        queue.add(connection, idleMillis, TimeUnit.MILLISECONDS);
    }

    /** The connection is idle from now on. */
    void start(ClientConnection connection) {
        connection.setIdleDeadline(System.currentTimeMillis() + idleMillis);
    }

    void stop(ClientConnection connection) {
        connection.setIdleDeadline(NO_DEADLINE);
    }

    private static final class Expiry implements DelayedExecutor.Worker<ClientConnection> {
        @Override
        public boolean doWork(ClientConnection connection) {
            long deadline = connection.idleDeadline();
            if (deadline == DelayedExecutor.UNSET_TIMEOUT) {
                return true;
            }
            if (deadline != NO_DEADLINE && System.currentTimeMillis() - deadline >= 0) {
                connection.idleTimedOut();
            }
            return false;
        }
    }

    private static final class Deadline implements DelayedExecutor.Resolver<ClientConnection> {
        @Override
        public boolean removeTimeout(ClientConnection connection) {
            connection.setIdleDeadline(DelayedExecutor.UNSET_TIMEOUT);
            return true;
        }

        @Override
        public long getTimeoutMillis(ClientConnection connection) {
            return connection.idleDeadline();
        }

        @Override
        public void setTimeoutMillis(ClientConnection connection, long timeoutMillis) {
            connection.setIdleDeadline(timeoutMillis);
        }
    }
}
