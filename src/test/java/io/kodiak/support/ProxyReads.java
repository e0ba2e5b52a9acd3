package io.kodiak.support;

import io.kodiak.Kodiak;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.ConnectionProbe;

import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The reads Kodiak makes on each of its connections (socket reads, as Grizzly reports them), so that a
 * test that sends a message in parts can wait until the proxy has read one part before it sends the next:
 * the split then happens by construction, on any machine, instead of by a pause that a loaded machine may
 * sleep through while the parts pile up into one read.
 *
 * <p>A connection is named by the port of the test's end of it: a client socket's local port, or, for a
 * connection to a test upstream, the port the upstream sees the proxy connect from.
 */
public final class ProxyReads extends ConnectionProbe.Adapter {
    private static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(30);

    // Guarded by this; keyed by the test's port (the proxy connection's peer or local port).
    private final Map<Integer, Long> reads = new HashMap<>();
    private final Set<Integer> closed = new HashSet<>();

    private ProxyReads() {
    }

    /** Starts counting on the connections {@code kodiak} opens or accepts from now on. */
    public static ProxyReads on(Kodiak kodiak) {
        ProxyReads probe = new ProxyReads();
        kodiak.loops().transport().getConnectionMonitoringConfig().addProbes(probe);
        return probe;
    }

    @Override
    public void onReadEvent(Connection connection, Buffer data, int size) {
        if (size <= 0) {
            return;
        }
        synchronized (this) {
            for (int port : ports(connection)) {
                reads.merge(port, 1L, Long::sum);
            }
            notifyAll();
        }
    }

    @Override
    public void onCloseEvent(Connection connection) {
        synchronized (this) {
            for (int port : ports(connection)) {
                closed.add(port);
            }
            notifyAll();
        }
    }

    private static int[] ports(Connection<?> connection) {
        Object peer = connection.getPeerAddress();
        Object local = connection.getLocalAddress();
        return new int[] {
                peer instanceof InetSocketAddress p ? p.getPort() : -1,
                local instanceof InetSocketAddress l ? l.getPort() : -1};
    }

    /** Socket reads so far on the proxy's connection to or from the test's {@code port}. */
    public synchronized long reads(int port) {
        return reads.getOrDefault(port, 0L);
    }

    /**
     * Waits until the proxy has read again on the connection of {@code port} since it had made
     * {@code readsBefore} reads, or closed it (a proxy that refused what it read reads no further).
     */
    public synchronized void awaitReadAfter(int port, long readsBefore) throws InterruptedException {
        long deadline = System.nanoTime() + DEADLINE_NANOS;
        while (reads(port) <= readsBefore && !closed.contains(port)) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("the proxy made no read on the connection of port " + port + " after "
                        + readsBefore + " reads");
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }
}
