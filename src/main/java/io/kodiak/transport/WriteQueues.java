package io.kodiak.transport;

import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.WriteHandler;
import org.glassfish.grizzly.nio.NIOConnection;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * How many bytes a connection's write queue may hold before the side feeding it stops reading,
 * and the bound on what all connections hold together.
 *
 * <p>A connection whose peer reads slower than the other side sends (a client downloading over a
 * slow link, or one that stops reading on purpose; an upstream taking an upload slowly) fills
 * its queue up to {@link #perConnection()}; the exchange then pauses the reads that feed it
 * (back-pressure) and waits here for room. Those waiting queues are what a few thousand slow
 * readers could use to fill the heap, and the heap running out ends the daemon for every client.
 * So the bytes held by waiting connections are counted, and once they reach {@link #budget()} a
 * connection gets room only while its queue is empty: each one then holds at most what one read
 * of the other side brought (up to the socket's receive buffer) instead of {@code perConnection}.
 * Connections that keep up are not slowed: their queues empty between reads.
 *
 * <p>A queue's bytes are counted when its connection starts waiting (read from Grizzly's queue,
 * which is what the transport's own cap compares) and released when the wait ends, by room or by
 * the connection closing: Grizzly calls every registered {@link WriteHandler} exactly once, one
 * way or the other. A queue that drains meanwhile stays counted at its size until then, which
 * errs on the safe side. Nothing is counted on the path of a connection that keeps up.
 */
public final class WriteQueues {
    /** Under pressure: room only while nothing is queued (Grizzly: room when size == 0 or size < max). */
    private static final int EMPTY_ONLY = 1;

    private final int perConnection;
    private final long budget;
    private final AtomicLong held = new AtomicLong();
    private final AtomicInteger waiting = new AtomicInteger();
    private final LongAdder waits = new LongAdder();
    private final LongAdder waitsUnderPressure = new LongAdder();

    /**
     * @param perConnection bytes one connection may queue before the reads feeding it pause
     * @param budget        bytes all waiting connections may hold before each is held to one read
     */
    public WriteQueues(int perConnection, long budget) {
        if (perConnection < 1 || budget < 1) {
            throw new IllegalArgumentException("perConnection " + perConnection + ", budget " + budget);
        }
        this.perConnection = perConnection;
        this.budget = budget;
    }

    /**
     * Whether {@code connection} may be given more to write now. Also sets the cap its queue's
     * room is judged by, for this answer and for a following {@link #whenRoom}.
     */
    public boolean hasRoom(Connection<?> connection) {
        int cap = held.get() >= budget ? EMPTY_ONLY : perConnection;
        if (connection.getMaxAsyncWriteQueueSize() != cap) {
            connection.setMaxAsyncWriteQueueSize(cap);
        }
        return connection.canWrite();
    }

    /**
     * After {@link #hasRoom} said no: {@code then} runs once the queue is below its cap again, or
     * reports the connection's failure; meanwhile its bytes count against the budget.
     */
    public void whenRoom(Connection<?> connection, WriteHandler then) {
        int queued = queued(connection);
        waits.increment();
        if (queued > 0 && connection.getMaxAsyncWriteQueueSize() == EMPTY_ONLY) {
            waitsUnderPressure.increment();
        }
        waiting.incrementAndGet();
        held.addAndGet(queued);
        connection.notifyCanWrite(new Waiting(queued, then));
    }

    private static int queued(Connection<?> connection) {
        return connection instanceof NIOConnection nio ? nio.getAsyncWriteQueue().spaceInBytes() : 0;
    }

    public int perConnection() {
        return perConnection;
    }

    public long budget() {
        return budget;
    }

    /** Bytes in the queues of connections waiting for room now, as counted when each began to wait. */
    public long held() {
        return held.get();
    }

    /** Connections waiting for room now. */
    public int waiting() {
        return waiting.get();
    }

    /** Waits for room so far. */
    public long waits() {
        return waits.sum();
    }

    /** Of {@link #waits()}, those begun with the budget spent (the connection held to one read). */
    public long waitsUnderPressure() {
        return waitsUnderPressure.sum();
    }

    /**
     * One wait: releases its count exactly once, however it ends (Grizzly reports an exception
     * thrown by onWritePossible to onError of the same handler).
     */
    private final class Waiting implements WriteHandler {
        private final int queued;
        private final WriteHandler then;
        private final AtomicBoolean released = new AtomicBoolean();

        Waiting(int queued, WriteHandler then) {
            this.queued = queued;
            this.then = then;
        }

        private void release() {
            if (released.compareAndSet(false, true)) {
                held.addAndGet(-queued);
                waiting.decrementAndGet();
            }
        }

        @Override
        public void onWritePossible() throws Exception {
            release();
            then.onWritePossible();
        }

        @Override
        public void onError(Throwable error) {
            release();
            then.onError(error);
        }
    }
}
