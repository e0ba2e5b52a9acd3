package io.kodiak.h2.upstream;

import io.kodiak.exchange.StreamWaiter;
import io.kodiak.h2.Http2Observer;
import io.kodiak.loop.EventLoop;
import io.kodiak.loop.EventLoops;
import io.kodiak.transport.Deadline;
import io.kodiak.transport.WriteQueues;
import io.kodiak.upstream.ExchangeDeadlines;
import io.kodiak.upstream.ResponseListener;
import io.kodiak.upstream.UpstreamPool;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.EmptyCompletionHandler;
import org.glassfish.grizzly.utils.DelayedExecutor;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The h2 connections to one server, as Envoy keeps a multiplexed pool per worker: each event loop
 * has its own ({@link LoopPool}), so a stream and its connection are on the loop of the exchange
 * that uses them, with no lock. A request takes a stream on a connection of its loop that has one
 * free (the server's SETTINGS_MAX_CONCURRENT_STREAMS); when none has, another connection opens,
 * within the server's max-connections across all loops ({@link UpstreamPool#connectShared}), and
 * requests wait for a free stream up to connect-timeout (then 503). Once a second, on each loop,
 * connections idle past idle-timeout close and quiet ones are checked with PING.
 *
 * <p>Retired with its {@link UpstreamPool} (a reload that no longer uses the server): idle
 * connections close, busy ones close once their streams end, and a request of the previous
 * configuration still gets a connection of its own.
 */
final class Http2Pool {
    private static final long CHECK_MILLIS = 1000;

    private final UpstreamPool pool;
    private final LoopPool[] loops;
    private final DelayedExecutor.DelayQueue<LoopPool> checks;
    private volatile boolean retired;

    Http2Pool(UpstreamPool pool, EventLoops eventLoops, DelayedExecutor.DelayQueue<LoopPool> checks,
              ExchangeDeadlines deadlines, WriteQueues queues, Http2Observer events) {
        this.pool = pool;
        this.checks = checks;
        this.loops = new LoopPool[eventLoops.count()];
        for (int i = 0; i < loops.length; i++) {
            loops[i] = new LoopPool(eventLoops.get(i), deadlines, queues, events);
            checks.add(loops[i], CHECK_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    /** On the caller's loop: {@code waiter} gets a stream for {@code listener}, or a failure. */
    void acquire(EventLoop loop, boolean fresh, ResponseListener listener, StreamWaiter waiter) {
        loops[loop.index()].acquire(fresh, listener, waiter);
    }

    /** h2 connections open on every loop (read across threads: a count for the status page). */
    int connections() {
        int n = 0;
        for (LoopPool loop : loops) {
            n += loop.connections();
        }
        return n;
    }

    /** What {@code loop}'s connections queue for window (on that loop). */
    long queuedBytes(EventLoop loop) {
        long queued = 0;
        for (Http2UpstreamConnection connection : loops[loop.index()].connections) {
            queued += connection.queuedBytes();
        }
        return queued;
    }

    /** The pool is out of service: each loop drains its connections. */
    void close() {
        retired = true;
        for (LoopPool loop : loops) {
            loop.loop.post(loop::drainIfRetired);
        }
    }

    /** One loop's connections to the server, and the requests of that loop waiting for a stream. */
    final class LoopPool {
        private final EventLoop loop;
        private final ExchangeDeadlines deadlines;
        private final WriteQueues queues;
        private final Http2Observer events;
        private final Deadline nextCheck = new Deadline();
        /** Copy-on-write: the status page counts them from another thread, and a loop goes through a snapshot while checks close some. */
        private final List<Http2UpstreamConnection> connections = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
        /** Connects under way. */
        private int connecting;
        /** The connections open when the pool was retired were told to drain. */
        private boolean drained;
        /** A connect found max-connections all open: waiters may time out as 503. */
        private boolean budgetSpent;

        LoopPool(EventLoop loop, ExchangeDeadlines deadlines, WriteQueues queues, Http2Observer events) {
            this.loop = loop;
            this.deadlines = deadlines;
            this.queues = queues;
            this.events = events;
        }

        EventLoop loop() {
            return loop;
        }

        Deadline nextCheck() {
            return nextCheck;
        }

        /**
         * {@code fresh} asks for no particular connection here: the connection a stale or refused
         * stream was on is closed or going away, so it hands out no stream; a server that refused
         * one stream (REFUSED_STREAM) may well take the next on the same connection.
         */
        void acquire(boolean fresh, ResponseListener listener, StreamWaiter waiter) {
            Http2UpstreamConnection free = free();
            if (free != null) {
                waiter.streamReady(free.reserve(listener));
                return;
            }
            waiting.add(new Waiting(listener, waiter, System.currentTimeMillis() + pool.connectTimeoutMillis()));
            serve();
        }

        private Http2UpstreamConnection free() {
            drainIfRetired();
            for (Http2UpstreamConnection connection : connections) {
                if (connection.available() > 0) {
                    return connection;
                }
            }
            return null;
        }

        /** Hands free streams to waiting requests, oldest first; opens a connection for those a connect under way will not serve. */
        private void serve() {
            while (!waiting.isEmpty()) {
                Http2UpstreamConnection free = free();
                if (free == null) {
                    break;
                }
                Waiting next = waiting.poll();
                next.waiter.streamReady(free.reserve(next.listener));
            }
            if (waiting.size() > (long) connecting * Http2UpstreamConnection.ASSUMED_MAX_STREAMS) {
                open();
            }
        }

        private void open() {
            if (!pool.connectShared(new Connected())) {
                budgetSpent = true;
                return;
            }
            connecting++;
        }

        private final class Connected extends EmptyCompletionHandler<Connection> {
            @Override
            public void completed(Connection connection) {
                loop.execute(() -> connected(connection));
            }

            @Override
            public void failed(Throwable error) {
                loop.execute(() -> connectFailed(error));
            }
        }

        private void connected(Connection<?> connection) {
            connecting--;
            budgetSpent = false;
            if (!connection.isOpen()) {
                connectFailed(new java.io.IOException("closed as it opened"));
                return;
            }
            drainIfRetired();
            Http2UpstreamConnection opened = new Http2UpstreamConnection(connection, this, deadlines, queues,
                    pool.speaksTls());
            connections.add(opened);
            // Also when it closed between the check above and now (its filter's close event then found nobody).
            connection.addCloseListener((closed, type) -> Http2UpstreamFilter.closed(closed));
            events.upstreamConnection(1);
            serve();
            if (retired) {
                // Serves the requests that waited for it, then closes with its last stream.
                opened.drain();
            }
        }

        private void connectFailed(Throwable error) {
            connecting--;
            if (connecting > 0 || free() != null) {
                return;
            }
            // Nothing else is coming: every waiter hears of the failure (its retry policy decides).
            List<Waiting> failed = new ArrayList<>(waiting);
            waiting.clear();
            for (Waiting each : failed) {
                each.waiter.streamFailed(error);
            }
        }

        /** Streams freed up, or the server's SETTINGS changed how many it takes. */
        void capacityChanged(Http2UpstreamConnection connection) {
            if (!waiting.isEmpty()) {
                serve();
            }
        }

        void goAwayReceived(Http2UpstreamConnection connection, String code) {
            events.upstreamGoAway(code);
        }

        void streamReset(String code) {
            events.upstreamStreamReset(code);
        }

        void closed(Http2UpstreamConnection connection) {
            connections.remove(connection);
            events.upstreamConnection(-1);
            budgetSpent = false;
            if (!waiting.isEmpty()) {
                // On the loop's next turn: this runs within the close, before its budget is given back.
                loop.post(() -> {
                    if (!waiting.isEmpty()) {
                        serve();
                    }
                });
            }
        }

        /** Once a second, on the loop: waiters past connect-timeout fail, connections are checked. */
        void check() {
            long now = System.currentTimeMillis();
            while (!waiting.isEmpty() && waiting.peek().deadline <= now) {
                Waiting late = waiting.poll();
                late.waiter.streamFailed(budgetSpent || connecting == 0 ? UpstreamPool.exhaustedError()
                        : new java.util.concurrent.TimeoutException("connect timed out"));
            }
            if (!waiting.isEmpty() && connecting == 0) {
                // The budget may have freed up on another loop since.
                serve();
            }
            long idle = pool.idleTimeoutMillis();
            long ping = Math.max(1000, Math.min(idle / 2, 30_000));
            for (Http2UpstreamConnection connection : connections) {
                connection.check(now, idle, ping);
            }
            if (retired && waiting.isEmpty() && connections.isEmpty() && connecting == 0) {
                // Out of service and nothing left to watch: the timer drops this loop's entry.
                nextCheck.close();
            }
        }

        /**
         * Once the pool is out of service, the connections it had then take no new stream and
         * close with their last one. Checked wherever a stream may be handed out, not only when
         * the drain posted by {@link #close()} runs: a stream freed before that must not go to a
         * waiter on a connection about to drain. Connections opened later (for requests of the
         * previous configuration) serve the requests they were opened for, then drain.
         */
        private void drainIfRetired() {
            if (retired && !drained) {
                drained = true;
                for (Http2UpstreamConnection connection : connections) {
                    connection.drain();
                }
            }
        }

        /** Open h2 connections on this loop. */
        int connections() {
            return connections.size();
        }
    }

    /** A request waiting for a free stream. */
    private record Waiting(ResponseListener listener, StreamWaiter waiter, long deadline) {
    }

    /** The timer's side: posts each loop's check to it, once a second. */
    static final class Checks implements DelayedExecutor.Worker<LoopPool> {
        @Override
        public boolean doWork(LoopPool loop) {
            loop.nextCheck().set(System.currentTimeMillis() + CHECK_MILLIS);
            loop.loop.post(loop::check);
            return false;
        }
    }
}
