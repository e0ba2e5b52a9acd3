package io.kodiak.upstream;

import io.kodiak.transport.Deadline;
import io.kodiak.transport.ReadGate;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.Grizzly;
import org.glassfish.grizzly.attributes.Attribute;

import java.util.concurrent.atomic.AtomicReference;


/**
 * What Kodiak keeps per upstream connection, in one attribute so each event costs one lookup:
 * the exchange currently using it, and how many requests it has carried (a connection that has
 * carried one before may have been closed by the upstream while idle).
 */
public final class UpstreamConnection {
    private static final Attribute<UpstreamConnection> ATTR =
            Grizzly.DEFAULT_ATTRIBUTE_BUILDER.createAttribute(UpstreamConnection.class.getName());

    /** Idle, or answered: far in the future, so the timer scan keeps the entry without firing. */
    static final long NO_DEADLINE = Deadline.NONE;

    /** The HTTP/1.1 response codec's state; null on a detached clock, which reads nothing. */
    private final ResponseReading reading;
    private final ReadGate gate;
    private final AtomicReference<ResponseListener> listener = new AtomicReference<>();
    private int requestsCarried;
    /** The bound exchange's next deadline; read by the timer thread. */
    private final Deadline deadline = new Deadline();
    private boolean inTimerQueue;
    /** Why the TLS handshake failed, when it did (the connection closes after it). */
    private volatile Throwable tlsFailure;
    /** A read failed (a reset, a TLS record that did not decrypt): the close that follows is no end of a close-delimited body. */
    private volatile boolean readFailed;

    /**
     * The clock of one stream on a connection that carries many (h2): its deadline and the attempt
     * bound to it, joined to the timer queue as a connection's is; {@link #retire()} at its end.
     */
    public static UpstreamConnection detached() {
        return new UpstreamConnection(false);
    }

    UpstreamConnection() {
        this(true);
    }

    private UpstreamConnection(boolean codec) {
        reading = codec ? new ResponseReading() : null;
        gate = codec ? new ReadGate() : null;
    }

    /** A detached clock's stream ended: it leaves the timer queue, and nothing reaches its listener any more. */
    public void retire() {
        closed();
    }

    public static UpstreamConnection of(Connection<?> connection) {
        UpstreamConnection state = ATTR.get(connection);
        if (state == null) {
            state = new UpstreamConnection(true);
            ATTR.set(connection, state);
        }
        return state;
    }

    static UpstreamConnection peek(Connection<?> connection) {
        return ATTR.get(connection);
    }

    /** Binds {@code exchange} for one request; returns true when the connection carried requests before. */
    public boolean bind(ResponseListener exchange) {
        if (gate != null) {
            gate.reset();
        }
        listener.set(exchange);
        return requestsCarried++ > 0;
    }

    /**
     * True when this pooled connection carried a request before and now looks closed or reset by
     * its peer (see {@link IdleCheck}); false for a connection not used yet.
     */
    public static boolean reusedButGone(Connection<?> connection) {
        UpstreamConnection state = peek(connection);
        return state != null && state.requestsCarried > 0 && IdleCheck.closedByPeer(connection);
    }

    /**
     * Unbinds only if {@code exchange} is still the bound one, so a late caller cannot unbind a
     * successor. True when this call unbound it: then no close event will reach it through this
     * connection any more.
     */
    public boolean unbind(ResponseListener exchange) {
        return listener.compareAndSet(exchange, null);
    }

    /** A read failed (a reset, not the end of the stream), or a filter failed on what it read; the connection is about to close. */
    void readFailed() {
        readFailed = true;
    }

    /** True once a read failed on this connection. */
    boolean hasReadFailed() {
        return readFailed;
    }

    ResponseReading reading() {
        return reading;
    }

    /**
     * Part of a response head arrived and no more: the server took the request and began to answer
     * it, which an idle pooled connection closed under a request never shows. Read from the
     * connection's close event, after its last read.
     */
    public boolean headBegun() {
        return reading.phase == ResponseReading.Phase.HEAD && reading.heads.isPartial();
    }

    ReadGate gate() {
        return gate;
    }

    /** Reads paused by the listener (the client could take no more) go on. */
    public void resumeReads() {
        gate.open();
    }

    void tlsFailed(Throwable cause) {
        tlsFailure = cause;
    }

    /** The TLS handshake's failure, or null: the connection closed for another reason. */
    public Throwable tlsFailure() {
        return tlsFailure;
    }

    ResponseListener listener() {
        return listener.get();
    }

    /** True the first time only: the connection joins the timer queue once in its life. */
    synchronized boolean enterTimerQueue() {
        if (inTimerQueue) {
            return false;
        }
        inTimerQueue = true;
        return true;
    }

    /** The connection is gone: leave the timer queue at its next scan and return the bound exchange, if any. */
    ResponseListener closed() {
        leaveTimerQueue();
        return takeListener();
    }

    void leaveTimerQueue() {
        deadline.close();
    }

    Deadline deadlineHolder() {
        return deadline;
    }

    long deadline() {
        return deadline.get();
    }

    /**
     * True while a deadline is set. The timer clears one when it passes, before the exchange's
     * loop hears of it: set again by then, the exchange made progress meanwhile.
     */
    public boolean deadlineSet() {
        long at = deadline.get();
        return at != NO_DEADLINE && at != org.glassfish.grizzly.utils.DelayedExecutor.UNSET_TIMEOUT;
    }

    /** Sets the deadline (epoch millis, or NO_DEADLINE) unless the connection is closed. */
    void setDeadline(long millis) {
        deadline.set(millis);
    }

    /** Clears the deadline {@code expired} if nobody set another since it was read; false when somebody did. */
    boolean clearExpired(long expired) {
        return deadline.clearIfStill(expired);
    }

    ResponseListener takeListener() {
        return listener.getAndSet(null);
    }
}
