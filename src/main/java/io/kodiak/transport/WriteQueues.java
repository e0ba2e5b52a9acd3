package io.kodiak.transport;

import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.CloseListener;
import org.glassfish.grizzly.Closeable;
import org.glassfish.grizzly.CompletionHandler;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.EmptyCompletionHandler;
import org.glassfish.grizzly.Grizzly;
import org.glassfish.grizzly.ICloseType;
import org.glassfish.grizzly.WriteHandler;
import org.glassfish.grizzly.WriteResult;
import org.glassfish.grizzly.attributes.Attribute;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * How many bytes a connection's write queue may hold before the side feeding it stops reading,
 * and the bound on what all connections' queues hold together.
 *
 * <p>A connection whose peer reads slower than the other side sends (a client downloading over a
 * slow link, or one that stops reading on purpose; an upstream taking an upload slowly) fills
 * its queue up to {@link #perConnection()}; the exchange then pauses the reads that feed it
 * (back-pressure) and waits here for room. Those queues are what a few thousand slow readers
 * could use to fill the heap, and the heap running out ends the daemon for every client. So every
 * byte an exchange writes is counted until the transport reports it written (or its connection
 * closes). Once the queues hold {@link #budget()} together the proxy is under pressure: a
 * connection gets room only while its queue is empty, so each slow reader holds what it had
 * queued when the budget ran out plus about one read of the other side (up to the socket's
 * receive buffer: Grizzly reads into a per-thread buffer of the largest size asked so far, so a
 * smaller read size per connection would not bound it) instead of {@code perConnection}.
 * Connections that keep up are not slowed much: their queues empty between reads.
 *
 * <p>The count is kept per connection by a completion handler Grizzly calls for each write. With
 * TLS it reports the encrypted size, a little more than was counted, so a connection's count is
 * never taken below zero; its close releases what is left.
 */
public final class WriteQueues {
    private static final Attribute<Account> ACCOUNT =
            Grizzly.DEFAULT_ATTRIBUTE_BUILDER.createAttribute(WriteQueues.class.getName() + ".account");
    /** Under pressure: room only while nothing is queued (Grizzly: room when size == 0 or size < max). */
    private static final int EMPTY_ONLY = 1;

    private final int perConnection;
    private final long budget;
    private final LongAdder held = new LongAdder();
    private final AtomicInteger waiting = new AtomicInteger();
    private final LongAdder waits = new LongAdder();
    private final LongAdder waitsUnderPressure = new LongAdder();

    /**
     * @param perConnection bytes one connection may queue before the reads feeding it pause
     * @param budget        bytes all queues may hold together before each is held to about one read
     */
    public WriteQueues(int perConnection, long budget) {
        if (perConnection < 1 || budget < 1) {
            throw new IllegalArgumentException("perConnection " + perConnection + ", budget " + budget);
        }
        this.perConnection = perConnection;
        this.budget = budget;
    }

    /**
     * Whether {@code connection} may be given more to write now. Also sets the cap its queue is
     * judged by, by the queues' total now, for this answer and for a following {@link #whenRoom}.
     */
    public boolean hasRoom(Connection<?> connection) {
        int cap = held.sum() >= budget ? EMPTY_ONLY : perConnection;
        if (connection.getMaxAsyncWriteQueueSize() != cap) {
            connection.setMaxAsyncWriteQueueSize(cap);
        }
        return connection.canWrite();
    }

    /**
     * Queues {@code bytes} for {@code connection}, counted until written. Every write an exchange
     * makes goes through here.
     */
    public void write(Connection<?> connection, Buffer bytes) {
        Account account = ACCOUNT.get(connection);
        if (account == null) {
            account = open(connection);
        }
        long n = bytes.remaining();
        if (account.add(n)) {
            writeCounted(connection, bytes, account);
        } else {
            // Closed: the write fails like any other on a closed connection, and nothing is counted.
            connection.write(bytes);
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void writeCounted(Connection<?> connection, Buffer bytes, Account account) {
        // Grizzly's generics name the connection's address type, which a write does not care about.
        ((Connection) connection).write(bytes, (CompletionHandler) account);
    }

    /** The connection's first write: its account, released by the connection's close. */
    private Account open(Connection<?> connection) {
        synchronized (connection) {
            Account account = ACCOUNT.get(connection);
            if (account == null) {
                account = new Account();
                ACCOUNT.set(connection, account);
                connection.addCloseListener(account);
            }
            return account;
        }
    }

    /**
     * After {@link #hasRoom} said no: {@code then} runs once the queue is below its cap again, or
     * reports the connection's failure.
     */
    public void whenRoom(Connection<?> connection, WriteHandler then) {
        waits.increment();
        if (connection.getMaxAsyncWriteQueueSize() == EMPTY_ONLY) {
            waitsUnderPressure.increment();
        }
        waiting.incrementAndGet();
        connection.notifyCanWrite(new Waiting(then));
    }

    public int perConnection() {
        return perConnection;
    }

    public long budget() {
        return budget;
    }

    /** Bytes written by exchanges and not yet taken by the kernel, all connections together. */
    public long held() {
        return held.sum();
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

    /** One wait: counted as waiting until it ends, however it ends. */
    private final class Waiting implements WriteHandler {
        private final WriteHandler then;
        private final AtomicBoolean ended = new AtomicBoolean();

        Waiting(WriteHandler then) {
            this.then = then;
        }

        /** Once: Grizzly reports an exception thrown by onWritePossible to onError of the same handler. */
        private void end() {
            if (ended.compareAndSet(false, true)) {
                waiting.decrementAndGet();
            }
        }

        @Override
        public void onWritePossible() throws Exception {
            end();
            then.onWritePossible();
        }

        @Override
        public void onError(Throwable error) {
            end();
            then.onError(error);
        }
    }

    /**
     * One connection's bytes queued and not yet written: {@link #CLOSED} once its connection
     * closed, after which nothing more is counted.
     */
    private final class Account extends EmptyCompletionHandler<WriteResult> implements CloseListener<Closeable, ICloseType> {
        private static final long CLOSED = -1;
        private final AtomicLong queued = new AtomicLong();

        boolean add(long n) {
            for (;;) {
                long now = queued.get();
                if (now == CLOSED) {
                    return false;
                }
                if (queued.compareAndSet(now, now + n)) {
                    held.add(n);
                    return true;
                }
            }
        }

        @Override
        public void completed(WriteResult result) {
            long written = result.getWrittenSize();
            for (;;) {
                long now = queued.get();
                if (now == CLOSED || now == 0) {
                    return;
                }
                long released = Math.min(now, written);
                if (queued.compareAndSet(now, now - released)) {
                    held.add(-released);
                    return;
                }
            }
        }

        @Override
        public void onClosed(Closeable closeable, ICloseType type) {
            long left = queued.getAndSet(CLOSED);
            if (left > 0) {
                held.add(-left);
            }
        }
    }
}
