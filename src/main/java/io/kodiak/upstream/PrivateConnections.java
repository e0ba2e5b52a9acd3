package io.kodiak.upstream;

import io.kodiak.loop.EventLoops;
import io.kodiak.proxyprotocol.ClientOrigin;
import io.kodiak.proxyprotocol.ProxyHeaderSender;
import io.kodiak.transport.Deadline;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.Grizzly;
import org.glassfish.grizzly.attributes.Attribute;
import org.glassfish.grizzly.utils.DelayedExecutor;

import java.util.concurrent.TimeUnit;

/**
 * The idle connections of a pool whose server is sent PROXY headers: each kept for the client
 * connection its header named ({@link ClientOrigin}), at most one per client connection, and
 * handed to that client connection's next exchange alone. A kept connection closes when its
 * client connection closes, when it has been idle for the pool's idle-timeout, when an exchange
 * waits for max-connections (a kept connection serves one client, so it gives its place up), or
 * when the pool is retired.
 *
 * <p>Each loop has its own shelf of them (a kept connection is registered on its client's loop),
 * touched by that loop alone; the timer thread only notices an idle-timeout and posts it to the
 * loop, which judges it again.
 */
final class PrivateConnections {
    private static final Attribute<Kept> KEPT =
            Grizzly.DEFAULT_ATTRIBUTE_BUILDER.createAttribute(PrivateConnections.class.getName());

    private final UpstreamPool pool;
    private final EventLoops loops;
    private final long idleTimeoutMillis;
    private final Shelf[] shelves;
    private final DelayedExecutor.DelayQueue<Kept> idleClock;

    PrivateConnections(UpstreamPool pool, EventLoops loops, DelayedExecutor timers, long idleTimeoutMillis) {
        this.pool = pool;
        this.loops = loops;
        this.idleTimeoutMillis = idleTimeoutMillis;
        this.shelves = new Shelf[loops.count()];
        for (int i = 0; i < shelves.length; i++) {
            shelves[i] = new Shelf();
        }
        this.idleClock = timers.createDelayQueue(new IdleExpiry(), Deadline.resolver(kept -> kept.idleUntil));
    }

    /** One upstream connection's part in this: its client connection, its loop, its place on the shelf, its idle deadline. */
    private static final class Kept {
        final Connection<?> connection;
        final ClientOrigin owner;
        final int loop;
        final Deadline idleUntil = new Deadline();
        boolean timed;
        boolean shelved;
        Kept previous;
        Kept next;

        Kept(Connection<?> connection, ClientOrigin owner, int loop) {
            this.connection = connection;
            this.owner = owner;
            this.loop = loop;
        }
    }

    /** A loop's idle kept connections, oldest first (an intrusive list: keeping one allocates nothing). */
    private static final class Shelf {
        private Kept oldest;
        private Kept newest;
        /** Written by the loop, read by the admin thread. */
        private volatile int count;

        void add(Kept kept) {
            kept.shelved = true;
            kept.previous = newest;
            kept.next = null;
            if (newest == null) {
                oldest = kept;
            } else {
                newest.next = kept;
            }
            newest = kept;
            count = count + 1;
        }

        void remove(Kept kept) {
            if (!kept.shelved) {
                return;
            }
            kept.shelved = false;
            if (kept.previous == null) {
                oldest = kept.next;
            } else {
                kept.previous.next = kept.next;
            }
            if (kept.next == null) {
                newest = kept.previous;
            } else {
                kept.next.previous = kept.previous;
            }
            kept.previous = null;
            kept.next = null;
            count = count - 1;
        }
    }

    /**
     * On {@code origin}'s loop: the connection kept for it, now the caller's; null when none is
     * (or the one kept has just closed).
     */
    Connection<?> take(ClientOrigin origin) {
        Connection<?> connection = origin.take(this);
        if (connection == null) {
            return null;
        }
        Kept kept = KEPT.get(connection);
        shelves[kept.loop].remove(kept);
        kept.idleUntil.set(Deadline.NONE);
        if (!connection.isOpen() || kept.owner != origin) {
            pool.discard(connection);
            return null;
        }
        return connection;
    }

    /**
     * On the connection's loop, at the end of an exchange that leaves it reusable: kept for the
     * client connection its header named. False, keeping nothing, when it named nobody, its
     * client connection has closed or has one kept already: the caller closes it.
     */
    boolean keep(Connection<?> connection, int loop) {
        ClientOrigin owner = ProxyHeaderSender.claimant(connection);
        if (owner == null || !connection.isOpen()) {
            return false;
        }
        Kept kept = KEPT.get(connection);
        if (kept == null) {
            kept = new Kept(connection, owner, loop);
            KEPT.set(connection, kept);
            Kept closing = kept;
            // Whatever closes it (its client, the server, a timeout), its place goes, on its loop.
            connection.addCloseListener((closed, type) -> loops.get(closing.loop).execute(() -> closed(closing)));
        }
        if (!owner.keep(this, connection)) {
            return false;
        }
        shelves[loop].add(kept);
        if (kept.timed) {
            kept.idleUntil.set(System.currentTimeMillis() + idleTimeoutMillis);
        } else {
            kept.timed = true;
            idleClock.add(kept, idleTimeoutMillis, TimeUnit.MILLISECONDS);
        }
        return true;
    }

    /** On its loop: the connection closed. */
    private void closed(Kept kept) {
        kept.idleUntil.close();
        shelves[kept.loop].remove(kept);
        kept.owner.forget(this, kept.connection);
    }

    /** On {@code loop}: the oldest idle kept connection closes (an exchange waits for max-connections); false when none is idle. */
    boolean giveUpOldest(int loop) {
        Kept oldest = shelves[loop].oldest;
        if (oldest == null) {
            return false;
        }
        drop(oldest);
        return true;
    }

    /** Retired: every idle kept connection closes, each on its loop. */
    void closeAll() {
        for (int i = 0; i < shelves.length; i++) {
            int loop = i;
            loops.get(i).post(() -> {
                while (giveUpOldest(loop)) {
                    // one by one, oldest first
                }
            });
        }
    }

    private void drop(Kept kept) {
        shelves[kept.loop].remove(kept);
        kept.owner.forget(this, kept.connection);
        pool.discard(kept.connection);
    }

    /** Idle kept connections, every loop together. */
    int idle() {
        int idle = 0;
        for (Shelf shelf : shelves) {
            idle += shelf.count;
        }
        return idle;
    }

    /**
     * On the timer thread: a kept connection's idle-timeout passed. Judged again on its loop: taken
     * meanwhile (its deadline cleared) or kept again (a later deadline set), it stays.
     */
    private final class IdleExpiry implements DelayedExecutor.Worker<Kept> {
        @Override
        public boolean doWork(Kept kept) {
            long deadline = kept.idleUntil.get();
            if (deadline == DelayedExecutor.UNSET_TIMEOUT) {
                return true;
            }
            if (System.currentTimeMillis() - deadline < 0 || !kept.idleUntil.clearIfStill(deadline)) {
                return false;
            }
            loops.get(kept.loop).post(() -> {
                if (kept.shelved && kept.idleUntil.get() == Deadline.NONE) {
                    drop(kept);
                }
            });
            // Stays queued: the connection may be kept again.
            return false;
        }
    }
}
