package io.kodiak.upstream;

import io.kodiak.loop.EventLoop;
import org.glassfish.grizzly.CompletionHandler;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.EmptyCompletionHandler;
import org.glassfish.grizzly.GrizzlyFuture;
import org.glassfish.grizzly.SocketConnectorHandler;
import org.glassfish.grizzly.connectionpool.Endpoint;
import org.glassfish.grizzly.impl.SafeFutureImpl;

import java.net.SocketAddress;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.IntConsumer;
import java.util.function.IntFunction;

/**
 * max-connections for one server, shared by the loops' pools. Each loop has a pool of its own
 * (its connections are registered on its selector and serve its exchanges alone), and each may
 * grow to the whole budget; a connect is made only while the connections open, on every loop
 * together, are fewer than max-connections. A connect that finds the budget spent waits, on its
 * loop, for a connection to close anywhere; and a loop releasing a connection while another loop
 * waits closes it instead of keeping it idle, so the budget moves to where it is needed.
 *
 * <p>Only opening and closing connections touch the shared count (one atomic each), never a
 * request that finds an idle connection in its own loop's pool.
 */
final class ServerConnections {
    private final SocketAddress address;
    private final SocketConnectorHandler connector;
    private final int max;
    private final AtomicInteger open = new AtomicInteger();
    /** The most connections open at once since the start (a test's and an operator's check of the budget). */
    private final AtomicInteger mostOpen = new AtomicInteger();
    /** Connects waiting for the budget, oldest first. */
    private final Queue<PoolConnect> waiting = new ConcurrentLinkedQueue<>();
    private final AtomicInteger waitingCount = new AtomicInteger();
    /** Of those, each loop's. */
    private final AtomicIntegerArray waitingByLoop;

    /** Asked when loop N starts to wait: the other loops close an idle connection each, if they have one to spare. */
    private final IntConsumer reclaimElsewhere;
    /** Loop N, once the transport has started: a waiting connect goes out on its own pool's loop. */
    private final IntFunction<EventLoop> loops;

    ServerConnections(SocketAddress address, SocketConnectorHandler connector, int max, int loops,
                      IntFunction<EventLoop> loopOf, IntConsumer reclaimElsewhere) {
        this.reclaimElsewhere = reclaimElsewhere;
        this.loops = loopOf;
        this.address = address;
        this.connector = connector;
        this.max = max;
        this.waitingByLoop = new AtomicIntegerArray(loops);
    }

    int open() {
        return open.get();
    }

    int mostOpen() {
        return mostOpen.get();
    }

    boolean atCapacity() {
        return open.get() >= max;
    }

    /** True while any loop waits for the budget. */
    boolean anyWait() {
        return waitingCount.get() > 0;
    }

    /** True while a loop other than {@code loop} waits for the budget: a connection going idle on {@code loop} should close instead. */
    boolean othersWait(int loop) {
        return waitingCount.get() - waitingByLoop.get(loop) > 0;
    }

    /** The pool of loop {@code index}'s way to connect: within the budget, or once it has room. */
    Endpoint<SocketAddress> endpointFor(int index) {
        return new Endpoint<>() {
            @Override
            public Object getId() {
                return address;
            }

            @Override
            public GrizzlyFuture<Connection> connect() {
                PoolConnect future = new PoolConnect(index);
                if (tryReserve()) {
                    // On the pool's own loop, so the connection is registered there: Grizzly's pool
                    // also connects from whichever thread closed one of its connections (a timer,
                    // a reload) to serve its waiters.
                    loops.apply(index).execute(() -> start(future));
                } else {
                    waitingCount.incrementAndGet();
                    waitingByLoop.incrementAndGet(index);
                    waiting.add(future);
                    // A connection may have closed between the check and the queueing.
                    wakeOne();
                    // Connections idle on other loops would otherwise hold the budget until their
                    // idle-timeout, longer than this wait may last.
                    reclaimElsewhere.accept(index);
                }
                return future;
            }
        };
    }

    /**
     * The pool's view of one connect. Its connect-timeout cancels it: a connect under way is
     * abandoned (Grizzly closes the socket); one still waiting for the budget fails instead with
     * {@link BudgetWaitTimedOut}, so the exchange answers 503 (every connection busy), not 504.
     */
    final class PoolConnect extends SafeFutureImpl<Connection> {
        /** The loop whose pool asked: the connect goes out there. */
        private final int loop;
        /** The connect under way; null while waiting for the budget. Set on the owning loop. */
        private volatile GrizzlyFuture<Connection> underway;

        PoolConnect(int loop) {
            this.loop = loop;
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            GrizzlyFuture<Connection> connect = underway;
            if (connect == null) {
                // No longer waiting: out of the queue at once, so no loop gives a connection up for it.
                if (waiting.remove(this)) {
                    left(this);
                }
                failure(new BudgetWaitTimedOut());
                return true;
            }
            connect.cancel(false);
            return super.cancel(mayInterruptIfRunning);
        }
    }

    /** No connection to the server could be opened within connect-timeout: max-connections were all open. */
    static final class BudgetWaitTimedOut extends TimeoutException {
        BudgetWaitTimedOut() {
            super("max-connections are all open");
        }
    }

    /** A connect outside the pool (a retry's own connection): counted, whatever the budget. */
    void connectOutside(CompletionHandler<Connection> handler) {
        mostOpen.accumulateAndGet(open.incrementAndGet(), Math::max);
        connector.connect(address, counted(handler));
    }

    /**
     * A connect within the budget, for a connection many exchanges share (h2): false, connecting
     * nothing, when max-connections are all open. On the caller's loop, which the connection joins.
     */
    boolean connectWithin(CompletionHandler<Connection> handler) {
        if (!tryReserve()) {
            return false;
        }
        connector.connect(address, counted(handler));
        return true;
    }

    private boolean tryReserve() {
        int now;
        do {
            now = open.get();
            if (now >= max) {
                return false;
            }
        } while (!open.compareAndSet(now, now + 1));
        mostOpen.accumulateAndGet(now + 1, Math::max);
        return true;
    }

    /** Connects for {@code future} with a reservation taken; on the pool's loop. */
    private void start(PoolConnect future) {
        if (future.isDone()) {
            // The pool stopped waiting (connect-timeout) before the connect began: the reservation goes back.
            closed();
            return;
        }
        @SuppressWarnings("unchecked")
        GrizzlyFuture<Connection> connect = (GrizzlyFuture<Connection>) connector.connect(address);
        future.underway = connect;
        if (future.isDone()) {
            // The pool's connect-timeout failed the wait between the check above and now: the
            // connect is abandoned (Grizzly closes what it opens; the count follows the close).
            connect.cancel(false);
        }
        CompletionHandler<Connection> then = counted(new EmptyCompletionHandler<>() {
            @Override
            public void completed(Connection connection) {
                future.result(connection);
                if (!taken(future, connection)) {
                    // The pool gave up waiting for it (connect-timeout): nobody holds it.
                    connection.closeSilently();
                }
            }

            @Override
            public void failed(Throwable error) {
                future.failure(error);
            }

            @Override
            public void cancelled() {
                future.cancel(false);
            }
        });
        connect.addCompletionHandler(then);
    }

    /** True when {@code future} holds {@code connection}: neither cancelled nor failed before it came. */
    private static boolean taken(PoolConnect future, Connection connection) {
        try {
            return !future.isCancelled() && future.get() == connection;
        } catch (Exception failedBefore) {
            return false;
        }
    }

    /**
     * One listener for every connection counted here. Made inside {@link #counted}'s handler, a
     * listener would capture that handler, and through it the connect's futures and their handlers:
     * about 200 bytes held for a pooled connection's whole life (measured: docs/memory.md).
     */
    private final org.glassfish.grizzly.CloseListener<Connection<?>, org.glassfish.grizzly.CloseType> countOnClose =
            (closed, type) -> closed();

    /** Counts the connection out when it closes, or at once when the connect fails. */
    private CompletionHandler<Connection> counted(CompletionHandler<Connection> handler) {
        return new EmptyCompletionHandler<>() {
            @Override
            public void completed(Connection connection) {
                connection.addCloseListener(countOnClose);
                handler.completed(connection);
            }

            @Override
            public void failed(Throwable error) {
                closed();
                handler.failed(error);
            }

            @Override
            public void cancelled() {
                closed();
                handler.cancelled();
            }
        };
    }

    private void closed() {
        open.decrementAndGet();
        wakeOne();
    }

    /** Starts the oldest waiting connect that still matters, on its own loop, if the budget has room. */
    private void wakeOne() {
        PoolConnect next;
        while ((next = waiting.peek()) != null) {
            if (next.isDone()) {
                // Its pool stopped waiting (connect-timeout): nothing to start.
                if (waiting.remove(next)) {
                    left(next);
                }
                continue;
            }
            if (!tryReserve()) {
                return;
            }
            if (waiting.remove(next)) {
                left(next);
                PoolConnect chosen = next;
                loops.apply(chosen.loop).execute(() -> start(chosen));
                return;
            }
            // Taken by another thread: give the reservation back and look again.
            open.decrementAndGet();
        }
    }

    private void left(PoolConnect waiter) {
        waitingCount.decrementAndGet();
        waitingByLoop.decrementAndGet(waiter.loop);
    }
}
