package io.kodiak.listener;

import io.kodiak.transport.Deadline;
import org.glassfish.grizzly.CloseListener;
import org.glassfish.grizzly.Closeable;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.ConnectionProbe;
import org.glassfish.grizzly.ICloseType;
import org.glassfish.grizzly.IOEvent;
import org.glassfish.grizzly.utils.DelayedExecutor;
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
 *
 * <p>An accept that fails (the process's open-file limit reached below this limit, EMFILE: by
 * another limit, or by files opened elsewhere) pauses accepting for {@link #BACK_OFF_MILLIS}, as
 * nginx and HAProxy do: the pending connection would otherwise wake the selector at once, again and
 * again. New clients wait in the listen queue meanwhile, and are taken once descriptors are free.
 */
final class ConnectionLimit extends ConnectionProbe.Adapter implements CloseListener<Closeable, ICloseType> {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionLimit.class);
    private static final long LOG_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);
    /**
     * How long accepting pauses after a failed accept, at least: short, since descriptors free up
     * as exchanges end. It resumes at the shared timer's next tick after that (within 350 ms).
     */
    static final long BACK_OFF_MILLIS = 100;

    private final int max;
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicLong pauses = new AtomicLong();
    private final AtomicLong acceptFailures = new AtomicLong();
    // Guarded by this: every listening socket, all paused together.
    private final List<Connection<?>> listening = new ArrayList<>();
    /** At the limit. */
    private boolean paused;
    /** Backing off after a failed accept, until the timer's retry. */
    private boolean backingOff;
    private long lastLogNanos;
    private long pausesAtLastLog;
    private long lastFailureLogNanos;
    private long failuresAtLastLog;
    /** When the back-off ends; the timer reads it. */
    private final Deadline retry = new Deadline();
    private final DelayedExecutor.DelayQueue<ConnectionLimit> retries;

    ConnectionLimit(int max, DelayedExecutor timers) {
        if (max < 1) {
            throw new IllegalArgumentException("max must be at least 1, got " + max);
        }
        this.max = max;
        this.retries = timers.createDelayQueue(limit -> {
            limit.endBackOff();
            return true;
        }, Deadline.resolver(limit -> limit.retry));
    }

    /**
     * Starts counting the connections {@code socket} accepts, and pausing it at the limit together
     * with the sockets attached before it.
     */
    void attach(Connection<?> socket) {
        synchronized (this) {
            listening.add(socket);
            if (paused || backingOff) {
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
            if (!backingOff) {
                for (Connection<?> socket : listening) {
                    setAccepting(socket, !full);
                }
            }
            if (full) {
                pauses.incrementAndGet();
                logPause();
            }
        }
    }

    /** On the accepting thread: {@code socket}'s accept failed with {@code error}. Every socket pauses for a moment. */
    void acceptFailed(Connection<?> socket, IOException error) {
        acceptFailures.incrementAndGet();
        synchronized (this) {
            if (!backingOff) {
                backingOff = true;
                for (Connection<?> each : listening) {
                    setAccepting(each, false);
                }
                retries.add(this, BACK_OFF_MILLIS, TimeUnit.MILLISECONDS);
            }
            logFailure(error);
        }
    }

    /** On the timer thread: accepting resumes unless the connection limit holds it. */
    private void endBackOff() {
        synchronized (this) {
            if (!backingOff) {
                return;
            }
            backingOff = false;
            if (!paused) {
                for (Connection<?> socket : listening) {
                    setAccepting(socket, true);
                }
            }
        }
    }

    /** The listener stops: the retry leaves the timer. */
    void close() {
        retry.close();
        retries.destroy();
    }

    /** At most once a minute, under the lock. */
    private void logFailure(IOException error) {
        long now = System.nanoTime();
        if (lastFailureLogNanos != 0 && now - lastFailureLogNanos < LOG_INTERVAL_NANOS) {
            return;
        }
        long total = acceptFailures.get();
        LOG.warn("accepting a client connection failed ({}): accepting pauses for {} ms or more each time, new clients"
                        + " wait in the listen queue ({} failed accepts since the last such message)",
                error.getMessage(), BACK_OFF_MILLIS, total - failuresAtLastLog);
        lastFailureLogNanos = now;
        failuresAtLastLog = total;
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

    long acceptFailures() {
        return acceptFailures.get();
    }
}
