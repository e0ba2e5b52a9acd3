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
import org.glassfish.grizzly.nio.NIOConnection;
import org.glassfish.grizzly.nio.transport.TCPNIOTransport;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.LongAdder;

/**
 * How many bytes a connection's write queue may hold before the side feeding it stops reading,
 * and the bound on what all connections hold together.
 *
 * <p>A connection whose peer reads slower than the other side sends (a client downloading over a
 * slow link, or one that stops reading on purpose; an upstream taking an upload slowly) fills its
 * write queue behind the kernel's socket buffer. Once the queue holds {@link #perConnection()},
 * the exchange pauses the reads that feed it (back-pressure) and waits here for room. Those queues
 * are what a few thousand slow readers could use to fill the heap, and the heap running out ends
 * the daemon for every client. So every byte an exchange writes is counted from the write until
 * the transport reports it written (or failed, or its connection closed), and once all connections
 * hold {@link #budget()} together the proxy is under pressure: a connection has room only while
 * its queue is empty, so each slow reader holds what it had then plus about one read of the other
 * side (up to the socket's receive buffer, 128 KiB by default on Linux) instead of {@code
 * perConnection}. Connections that keep up are slowed little: their queues empty between reads.
 *
 * <p>Room is Grizzly's (its queue against the cap this class sets on the connection), and so is
 * the wake-up: the exchanges' pause and resume were built on its notification's exact behaviour.
 * The count is Kodiak's own: each write releases exactly its own size (with TLS, Grizzly reports
 * the encrypted size), and it includes what the TLS filter holds before a handshake completes,
 * which Grizzly's queue does not see (and so does not pause for: an upload to an https:// upstream
 * whose handshake is slow is bounded only by the handshake's time).
 */
public final class WriteQueues {
    private static final Attribute<Account> ACCOUNT =
            Grizzly.DEFAULT_ATTRIBUTE_BUILDER.createAttribute(WriteQueues.class.getName() + ".account");
    /** Under pressure: room only while nothing is queued (Grizzly: room when size == 0 or size < max). */
    private static final int EMPTY_ONLY = 1;

    /** Guards the creation of accounts only (once per connection). */
    private final Object accounts = new Object();
    private final int perConnection;
    private final long budget;
    private final LongAdder held = new LongAdder();
    private final AtomicInteger waiting = new AtomicInteger();
    private final LongAdder waits = new LongAdder();
    private final LongAdder waitsUnderPressure = new LongAdder();

    /**
     * @param perConnection bytes one connection may hold before the reads feeding it pause
     * @param budget        bytes all connections may hold together before each may hold only what
     *                      it has until that is written
     */
    public WriteQueues(int perConnection, long budget) {
        if (perConnection < 1 || budget < 1) {
            throw new IllegalArgumentException("perConnection " + perConnection + ", budget " + budget);
        }
        this.perConnection = perConnection;
        this.budget = budget;
    }

    /**
     * Gives {@code transport}'s connections the per-connection cap as their first one (Grizzly's
     * default is 4x the socket send buffer, several MiB on loopback: too much per connection for a
     * proxy that holds thousands); {@link #hasRoom} changes it per connection under pressure.
     */
    public void capQueues(TCPNIOTransport transport) {
        transport.getAsyncQueueIO().getWriter().setMaxPendingBytesPerConnection(perConnection);
    }

    /**
     * Writes {@code bytes} to {@code connection}, counted until written. Every write an exchange
     * makes goes through here.
     */
    public void write(Connection<?> connection, Buffer bytes) {
        Account account = account(connection);
        int n = bytes.remaining();
        if (account.add(n)) {
            writeCounted(connection, bytes, new Written(account, n));
        } else {
            // Closed: the write fails like any other on a closed connection, and nothing is counted.
            connection.write(bytes);
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void writeCounted(Connection<?> connection, Buffer bytes, Written written) {
        // Grizzly's generics name the connection's address type, which a write does not care about.
        ((Connection) connection).write(bytes, (CompletionHandler) written);
    }

    /**
     * Whether {@code connection} may be given more to write now: its write queue is empty, or
     * under the per-connection cap while all connections together hold less than the budget. When
     * the queue is not empty, sets that cap on the connection, which a following {@link #whenRoom}
     * waits by.
     */
    public boolean hasRoom(Connection<?> connection) {
        if (connection instanceof NIOConnection nio && nio.getAsyncWriteQueue().isEmpty()) {
            // Room whatever the cap; the usual case for a peer that keeps up, and no sum to take.
            return true;
        }
        int cap = underPressure() ? EMPTY_ONLY : perConnection;
        if (connection.getMaxAsyncWriteQueueSize() != cap) {
            connection.setMaxAsyncWriteQueueSize(cap);
        }
        return connection.canWrite();
    }

    /**
     * After {@link #hasRoom} said no: {@code then} runs once the queue is below its cap again, or
     * hears of the connection's failure (Grizzly's own notification: onWritePossible or onError,
     * and onError also after an onWritePossible that threw).
     */
    public void whenRoom(Connection<?> connection, WriteHandler then) {
        waits.increment();
        if (connection.getMaxAsyncWriteQueueSize() == EMPTY_ONLY) {
            waitsUnderPressure.increment();
        }
        waiting.incrementAndGet();
        connection.notifyCanWrite(new Waiting(then));
    }

    private Account account(Connection<?> connection) {
        Account account = ACCOUNT.get(connection);
        return account != null ? account : open(connection);
    }

    /**
     * The connection's first use: its account, released by the connection's close. A lock of its
     * own, not the connection's (Grizzly's TLS filter locks that one while writing).
     */
    private Account open(Connection<?> connection) {
        Account account;
        synchronized (accounts) {
            account = ACCOUNT.get(connection);
            if (account != null) {
                return account;
            }
            account = new Account();
            ACCOUNT.set(connection, account);
        }
        // Outside the lock: on a connection already closed, Grizzly calls the listener at once.
        connection.addCloseListener(account);
        return account;
    }

    private boolean underPressure() {
        return held.sum() >= budget;
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

    /** Of {@link #waits()}, those begun with the budget spent (the connection held to what it has). */
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

    /** One connection's bytes written and not yet sent; nothing is counted once it closed. */
    private final class Account implements CloseListener<Closeable, ICloseType> {
        private long queued;
        private boolean closed;

        synchronized boolean add(int n) {
            if (closed) {
                return false;
            }
            queued += n;
            held.add(n);
            return true;
        }

        /** {@code n} bytes written, or failed: no longer held. */
        synchronized void release(int n) {
            if (!closed) {
                queued -= n;
                held.add(-n);
            }
        }

        @Override
        public synchronized void onClosed(Closeable closeable, ICloseType type) {
            if (!closed) {
                closed = true;
                held.add(-queued);
                queued = 0;
            }
        }
    }

    /**
     * One write: releases exactly its own size once, when written, failed or cancelled (Grizzly
     * reports one of them; the guard keeps a second report from taking the count below what is
     * held, which would quietly lift the budget).
     */
    private static final class Written extends EmptyCompletionHandler<WriteResult> {
        /** The guard as a field of its own object: one allocation per write, not two. */
        private static final AtomicIntegerFieldUpdater<Written> DONE =
                AtomicIntegerFieldUpdater.newUpdater(Written.class, "done");
        private final Account account;
        private final int size;
        private volatile int done;

        Written(Account account, int size) {
            this.account = account;
            this.size = size;
        }

        private void release() {
            if (DONE.compareAndSet(this, 0, 1)) {
                account.release(size);
            }
        }

        @Override
        public void completed(WriteResult result) {
            release();
        }

        @Override
        public void failed(Throwable error) {
            release();
        }

        @Override
        public void cancelled() {
            release();
        }
    }
}
