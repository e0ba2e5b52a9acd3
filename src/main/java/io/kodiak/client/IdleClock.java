package io.kodiak.client;

import io.kodiak.transport.Deadline;
import org.glassfish.grizzly.utils.DelayedExecutor;

import java.util.concurrent.TimeUnit;

/**
 * Closes client connections that stay idle: between requests, and while a request head is still
 * incomplete (a head must be whole within idle-timeout of the connection becoming idle, however
 * slowly its bytes drip). An exchange in progress stops the clock; its own deadlines apply.
 * Each connection joins the timer queue once; a refresh only writes a field. One clock serves
 * every address of the listener; each connection's idle-timeout is the one it was accepted under.
 */
public final class IdleClock {
    private final DelayedExecutor.DelayQueue<ClientConnection> queue;

    public IdleClock(DelayedExecutor timers) {
        this.queue = timers.createDelayQueue(new Expiry(), Deadline.resolver(ClientConnection::idleDeadline));
    }

    void join(ClientConnection connection) {
        queue.add(connection, connection.idleTimeoutMillis(), TimeUnit.MILLISECONDS);
    }

    /** The connection is idle from now on. */
    void start(ClientConnection connection) {
        connection.idleDeadline().set(System.currentTimeMillis() + connection.idleTimeoutMillis());
    }

    void stop(ClientConnection connection) {
        connection.idleDeadline().set(Deadline.NONE);
    }

    private static final class Expiry implements DelayedExecutor.Worker<ClientConnection> {
        @Override
        public boolean doWork(ClientConnection connection) {
            long deadline = connection.idleDeadline().get();
            if (deadline == DelayedExecutor.UNSET_TIMEOUT) {
                return true;
            }
            if (deadline != Deadline.NONE && System.currentTimeMillis() - deadline >= 0) {
                connection.idleTimedOut();
            }
            return false;
        }
    }
}
