package io.kodiak.upstream;

import io.kodiak.loop.EventLoops;
import io.kodiak.routing.UpstreamTarget;
import org.glassfish.grizzly.CompletionHandler;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.EmptyCompletionHandler;
import org.glassfish.grizzly.connectionpool.SingleEndpointPool;
import org.glassfish.grizzly.SocketConnectorHandler;
import org.glassfish.grizzly.utils.DelayedExecutor;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Connections to one upstream host:port. Wraps Grizzly's {@link SingleEndpointPool} with the
 * rules the exchange relies on: a connection comes back only when complete and reusable,
 * anything else is detached and closed, and a retry can ask for a brand-new connection instead
 * of another idle one that may be just as stale.
 *
 * <p>A pool that a configuration reload left without a server is {@linkplain #close() retired}:
 * its idle connections close at once, each busy one when its exchange returns it, and exchanges
 * of the previous configuration still asking for a connection get one of their own, closed after
 * use, instead of an error (a reload fails no exchange).
 */
public final class UpstreamPool {
    private static final Logger LOG = LoggerFactory.getLogger(UpstreamPool.class);
    private final UpstreamTarget target;
    private final SocketConnectorHandler connector;
    /** Opens the health checks' connections: HTTP/1.1, whatever the pool's connections speak. */
    private final SocketConnectorHandler checks;
    /** How the connector speaks TLS; null for plain HTTP. */
    private final io.kodiak.tls.UpstreamTls tls;
    private final SocketAddress address;
    private final EventLoops loops;
    /** One per loop, by {@link io.kodiak.loop.EventLoop#index()}. */
    private final SingleEndpointPool<SocketAddress>[] pools;
    /** max-connections, across the loops' pools. */
    private final ServerConnections budget;
    private final boolean persistent;
    private final long connectTimeoutMillis;
    private final int maxConnections;
    /** Exchanges waiting for a connection, by loop. */
    private final java.util.concurrent.atomic.AtomicIntegerArray waitingHere;
    private final FreshConnects freshConnects;
    private final PoolTimers timers;
    private volatile boolean retired;
    private final long idleTimeoutMillis;
    /** For a server sent PROXY headers: its idle connections, each kept for the client connection it named; else null. */
    private final PrivateConnections privates;
    /** Run once when the pool is retired (a shared-connection pool built on this one closes with it). */
    private final java.util.List<Runnable> onClose = new java.util.concurrent.CopyOnWriteArrayList<>();

    /**
     * {@code connector}: opens the pool's connections with the server's filter chain (plain, or
     * TLS, under the HTTP/1.1 codec or an h2 connection); {@code checks}: the HTTP/1.1 chain.
     * {@code persistent}: idle connections are kept for any exchange; {@code privateToClients}
     * (a server sent PROXY headers): each is kept for the client connection its header named.
     */
    @SuppressWarnings("unchecked")
    UpstreamPool(UpstreamTarget target, SocketConnectorHandler connector, SocketConnectorHandler checks,
                 io.kodiak.tls.UpstreamTls tls, EventLoops loops,
                 DelayedExecutor timers, FreshConnects freshConnects, int maxConnections, long connectTimeoutMillis,
                 long idleTimeoutMillis, boolean persistent, boolean privateToClients) {
        this.target = target;
        this.connector = connector;
        this.checks = checks;
        this.tls = tls;
        this.loops = loops;
        this.address = new InetSocketAddress(target.host(), target.port());
        this.persistent = persistent;
        this.idleTimeoutMillis = idleTimeoutMillis;
        this.connectTimeoutMillis = connectTimeoutMillis;
        this.maxConnections = maxConnections;
        this.freshConnects = freshConnects;
        this.timers = new PoolTimers(timers);
        this.privates = privateToClients ? new PrivateConnections(this, loops, this.timers, idleTimeoutMillis) : null;
        this.budget = new ServerConnections(address, connector, maxConnections, loops.count(), loops::get,
                this::reclaimFor);
        this.waitingHere = new java.util.concurrent.atomic.AtomicIntegerArray(loops.count());
        this.pools = new SingleEndpointPool[loops.count()];
        for (int i = 0; i < pools.length; i++) {
            pools[i] = SingleEndpointPool.builder(SocketAddress.class)
                    .endpoint(budget.endpointFor(i))
                    // Each loop's pool may hold the whole budget; the budget bounds them together.
                    .maxPoolSize(privateToClients ? -1 : maxConnections)
                    .connectTimeout(connectTimeoutMillis, TimeUnit.MILLISECONDS)
                    .asyncPollTimeout(connectTimeoutMillis, TimeUnit.MILLISECONDS)
                    .keepAliveTimeout(idleTimeoutMillis, TimeUnit.MILLISECONDS)
                    .keepAliveCheckInterval(Math.min(1000, idleTimeoutMillis), TimeUnit.MILLISECONDS)
                    .maxReconnectAttempts(0)
                    .delayExecutor(this.timers)
                    .build();
        }
    }

    /** Loop {@code waiting} waits for the budget: every other loop gives up an idle connection, if it has one to spare. */
    private void reclaimFor(int waiting) {
        for (int i = 0; i < pools.length; i++) {
            // A connection kept for one client serves no other, the waiting loop's own included.
            if (i != waiting || privates != null) {
                int index = i;
                loops.get(i).post(() -> reclaimIdle(index));
            }
        }
    }

    /** On loop {@code index}: closes one idle connection while another loop waits and none of this loop's exchanges does. */
    private void reclaimIdle(int index) {
        if (privates != null) {
            if (budget.anyWait()) {
                privates.giveUpOldest(index);
            }
            return;
        }
        if (waitingHere.get(index) > 0 || !budget.othersWait(index)) {
            return;
        }
        // Only an idle one: poll never opens or waits (the keep-alive timer may have closed it meanwhile).
        try {
            Connection<?> idle = pools[index].poll();
            if (idle != null) {
                discard(idle);
            }
        } catch (IOException closed) {
            // Retired meanwhile: its idle connections are closed already.
        }
    }

    /** The loop {@code connection} belongs to, and so its pool: the one whose selector it is on. */
    private int ownerIndex(Connection<?> connection) {
        io.kodiak.loop.EventLoop loop = loops.of(connection);
        return loop == null ? 0 : loop.index();
    }

    private SingleEndpointPool<SocketAddress> ownerOf(Connection<?> connection) {
        return pools[ownerIndex(connection)];
    }

    io.kodiak.tls.UpstreamTls tls() {
        return tls;
    }

    /** The server is https://: its connections speak TLS. */
    public boolean speaksTls() {
        return tls != null;
    }

    public UpstreamTarget target() {
        return target;
    }

    /**
     * As {@link #acquire(CompletionHandler)}, for an exchange of {@code client} (null: none in
     * particular): on a server sent PROXY headers, the connection kept for that client connection
     * when there is one, else a new one (never another client's).
     */
    public void acquire(io.kodiak.proxyprotocol.ClientOrigin client, CompletionHandler<Connection> handler) {
        if (privates != null && client != null && !retired) {
            Connection<?> kept = privates.take(client);
            if (kept != null) {
                handler.completed(kept);
                return;
            }
        }
        acquire(handler);
    }

    /** Hands a connection to {@code handler} without blocking: an idle one, a new one, or the next one released. */
    public void acquire(CompletionHandler<Connection> handler) {
        if (retired) {
            acquireFresh(handler);
            return;
        }
        int index = loops.currentOrFirst().index();
        waitingHere.incrementAndGet(index);
        pools[index].take(new CompletionHandler<Connection>() {
            @Override
            public void completed(Connection connection) {
                waitingHere.decrementAndGet(index);
                handler.completed(connection);
            }

            @Override
            public void failed(Throwable error) {
                waitingHere.decrementAndGet(index);
                if (retired) {
                    // Waiting when a reload retired the pool: the pool's close failed the wait, on
                    // the reload's thread; the connect goes out on the waiting exchange's loop, so
                    // the connection is registered there.
                    loops.get(index).execute(() -> acquireFresh(handler));
                } else {
                    handler.failed(error);
                }
            }

            @Override
            public void cancelled() {
                waitingHere.decrementAndGet(index);
                handler.cancelled();
            }

            @Override
            public void updated(Connection connection) {
            }
        });
    }

    /**
     * A connection opened for this request alone: used to retry after a pooled connection turned
     * out to be closed by the upstream. It joins the pool when there is room, else it is closed after use.
     */
    public void acquireFresh(CompletionHandler<Connection> handler) {
        FreshConnects.Attempt attempt = freshConnects.start(handler, connectTimeoutMillis);
        budget.connectOutside(new EmptyCompletionHandler<Connection>() {
            @Override
            public void completed(Connection connection) {
                if (!attempt.settle()) {
                    // Past connect-timeout: the exchange has moved on.
                    connection.closeSilently();
                    return;
                }
                try {
                    ownerOf(connection).attach(connection);
                } catch (IOException poolClosed) {
                    if (!retired) {
                        connection.closeSilently();
                        handler.failed(poolClosed);
                        return;
                    }
                    // Retired meanwhile: the connection serves this exchange alone (release closes it).
                }
                handler.completed(connection);
            }

            @Override
            public void failed(Throwable error) {
                if (attempt.settle()) {
                    handler.failed(error);
                }
            }

            @Override
            public void cancelled() {
                if (attempt.settle()) {
                    handler.failed(new IOException("connect cancelled"));
                }
            }
        });
    }

    /**
     * A connection many exchanges will share (h2), opened on the caller's loop within
     * max-connections and connect-timeout; false, and {@code handler} never called, when
     * max-connections are all open.
     */
    public boolean connectShared(CompletionHandler<Connection> handler) {
        FreshConnects.Attempt attempt = freshConnects.start(handler, connectTimeoutMillis);
        boolean started = budget.connectWithin(new EmptyCompletionHandler<Connection>() {
            @Override
            public void completed(Connection connection) {
                if (attempt.settle()) {
                    handler.completed(connection);
                } else {
                    // Past connect-timeout: the waiters have moved on.
                    connection.closeSilently();
                }
            }

            @Override
            public void failed(Throwable error) {
                if (attempt.settle()) {
                    handler.failed(error);
                }
            }

            @Override
            public void cancelled() {
                if (attempt.settle()) {
                    handler.failed(new IOException("connect cancelled"));
                }
            }
        });
        if (!started) {
            attempt.settle();
        }
        return started;
    }

    /** Why an exchange waited in vain: max-connections were all open (503, as {@link #exhausted} tells). */
    public static Throwable exhaustedError() {
        return new ServerConnections.BudgetWaitTimedOut();
    }

    public long idleTimeoutMillis() {
        return idleTimeoutMillis;
    }

    /** True once a reload retired the pool, or the proxy stops. */
    public boolean retired() {
        return retired;
    }

    /** {@code action} runs when the pool is retired (at once if it is already). */
    public void whenClosed(Runnable action) {
        onClose.add(action);
        if (retired && onClose.remove(action)) {
            action.run();
        }
    }

    /** Returns a connection whose last exchange completed cleanly; with persistence off it is closed instead. */
    public void release(Connection<?> connection) {
        if (!persistent) {
            // Kept for its own client connection, unless an exchange waits for max-connections.
            if (privates == null || retired || budget.anyWait() || !privates.keep(connection, ownerIndex(connection))) {
                discard(connection);
            }
            return;
        }
        int index = ownerIndex(connection);
        if (waitingHere.get(index) == 0 && budget.othersWait(index)) {
            // Another loop waits for a connection to this server, and nothing here does: the budget goes there.
            discard(connection);
            return;
        }
        try {
            pools[index].release(connection);
        } catch (RuntimeException poolBug) {
            // Grizzly 2.3.35 fails the pool's waiters after a failed connect without holding the
            // pool's lock (fixed in Mule's fork as MULE-17660; glassfish-grizzly#2101), which can
            // corrupt its waiting list so that a later release throws. Seen here as a
            // NullPointerException at 8,000 connections when connects failed with EMFILE. Closing
            // the connection keeps the pool's count right (its close listener runs under the lock)
            // and lets the exchange finish instead of leaving its client waiting.
            LOG.warn("upstream pool {} failed to take a connection back ({}); closing it", target.originKey(),
                    poolBug.toString());
            connection.closeSilently();
        }
    }

    /** Removes a connection from the pool and closes it: it is broken, mid-message, or not reusable. */
    public void discard(Connection<?> connection) {
        ownerOf(connection).detach(connection);
        connection.closeSilently();
    }

    public long connectTimeoutMillis() {
        return connectTimeoutMillis;
    }

    /** A connection outside the pool (health checks, a retired pool's users), with the server's filter chain. */
    void connect(CompletionHandler<Connection> handler) {
        checks.connect(address, handler);
    }

    public int maxConnections() {
        return maxConnections;
    }

    /** True when {@code error} ended a wait for a connection because max-connections were all open (503, not 504). */
    public static boolean exhausted(Throwable error) {
        return error instanceof ServerConnections.BudgetWaitTimedOut;
    }

    public boolean isAtCapacity() {
        return budget.atCapacity();
    }

    /** Connections open to this server, on every loop (a retry's own included). */
    public int openConnections() {
        return budget.open();
    }

    /** The most connections open to this server at once since the pool was made, on every loop together. */
    public int mostOpenAtOnce() {
        return budget.mostOpen();
    }

    public int idleConnections() {
        int idle = privates == null ? 0 : privates.idle();
        for (SingleEndpointPool<SocketAddress> pool : pools) {
            idle += pool.getReadyConnectionsCount();
        }
        return idle;
    }

    /** Connections handed to exchanges right now. */
    public int leasedConnections() {
        return Math.max(0, openConnections() - idleConnections());
    }

    /** Exchanges waiting for a connection (being opened, or until one is released). */
    public int pendingAcquisitions() {
        int pending = 0;
        for (int i = 0; i < waitingHere.length(); i++) {
            pending += waitingHere.get(i);
        }
        return pending;
    }

    public boolean persistent() {
        return persistent;
    }

    /**
     * Out of service (a reload retired it, or the proxy stops): idle connections close now, busy
     * ones when released (Grizzly's closed pool closes what it no longer knows), and later users
     * connect on their own.
     */
    void close() {
        retired = true;
        if (privates != null) {
            privates.closeAll();
        }
        for (SingleEndpointPool<SocketAddress> pool : pools) {
            pool.close();
        }
        for (Runnable action : onClose) {
            if (onClose.remove(action)) {
                action.run();
            }
        }
        timers.release();
    }
}
