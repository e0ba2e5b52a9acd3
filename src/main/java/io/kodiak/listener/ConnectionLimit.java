package io.kodiak.listener;

import org.glassfish.grizzly.CloseListener;
import org.glassfish.grizzly.Closeable;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.ConnectionProbe;
import org.glassfish.grizzly.ICloseType;
import org.glassfish.grizzly.IOEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The most client connections the listener holds at once ({@code proxy.listener.max-connections}).
 * At the limit the listening sockets (every address) stop being accepted from: new clients wait in the kernel's
 * listen queue until a connection closes, as with HAProxy's maxconn or Tomcat's maxConnections.
 * Accepting regardless runs the process out of file descriptors, and then the exchanges already
 * accepted fail too, their upstream connects refused with "Too many open files".
 *
 * <p>Accepts are counted on the accepting thread, from the listening connection's probe, so a pause
 * takes effect before the next accept; closes arrive on any selector thread. The accept interest
 * changes only where the count crosses the limit, and every crossing re-reads the count under the
 * lock, so the last crossing leaves the listener in the state the current count calls for.
 */
final class ConnectionLimit extends ConnectionProbe.Adapter implements CloseListener<Closeable, ICloseType> {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionLimit.class);
    private static final long LOG_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final int max;
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicLong pauses = new AtomicLong();
    // Guarded by this: every listening socket, all paused together.
    private final List<Connection<?>> listening = new ArrayList<>();
    private boolean paused;
    private long lastLogNanos;
    private long pausesAtLastLog;

    ConnectionLimit(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("max must be at least 1, got " + max);
        }
        this.max = max;
    }

    /**
     * Starts counting the connections {@code socket} accepts, and pausing it at the limit together
     * with the sockets attached before it.
     */
    void attach(Connection<?> socket) {
        synchronized (this) {
            listening.add(socket);
            if (paused) {
                setAccepting(socket, false);
            }
        }
        socket.getMonitoringConfig().addProbes(this);
        update();
    }

    /** Stops counting {@code socket}'s accepts (a reload stopped listening on its address). */
    void detach(Connection<?> socket) {
        socket.getMonitoringConfig().removeProbes(this);
        synchronized (this) {
            listening.remove(socket);
        }
    }

    @Override
    public void onAcceptEvent(Connection serverConnection, Connection clientConnection) {
        if (open.incrementAndGet() >= max) {
            update();
        }
        // After the increment: a connection already closed is reported at once, and counted down.
        clientConnection.addCloseListener(this);
    }

    @Override
    public void onClosed(Closeable closeable, ICloseType type) {
        if (open.decrementAndGet() == max - 1) {
            update();
        }
    }

    private void update() {
        synchronized (this) {
            if (listening.isEmpty()) {
                return;
            }
            boolean full = open.get() >= max;
            if (full == paused) {
                return;
            }
            paused = full;
            for (Connection<?> socket : listening) {
                setAccepting(socket, !full);
            }
            if (full) {
                pauses.incrementAndGet();
                logPause();
            }
        }
    }

    private static void setAccepting(Connection<?> socket, boolean accepting) {
        try {
            if (accepting) {
                socket.enableIOEvent(IOEvent.SERVER_ACCEPT);
            } else {
                socket.disableIOEvent(IOEvent.SERVER_ACCEPT);
            }
        } catch (IOException e) {
            // The listening socket is closed (the proxy is stopping): nothing is accepted either way.
        }
    }

    /** At most once a minute: a proxy held at its limit pauses at every close. */
    private void logPause() {
        long now = System.nanoTime();
        if (lastLogNanos != 0 && now - lastLogNanos < LOG_INTERVAL_NANOS) {
            return;
        }
        long total = pauses.get();
        LOG.warn("{} client connections open, proxy.listener.max-connections reached: new clients wait in the"
                + " listen queue until one closes (paused {} times since the last such message)",
                max, total - pausesAtLastLog);
        lastLogNanos = now;
        pausesAtLastLog = total;
    }

    int max() {
        return max;
    }

    int open() {
        return open.get();
    }

    synchronized boolean paused() {
        return paused;
    }

    long pauses() {
        return pauses.get();
    }
}
