package io.kodiak.transport;

import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;

/**
 * Stops and restarts reads on one connection, client or upstream. The reading filter closes the
 * gate with its context (Grizzly reads nothing more from a connection whose read context is
 * suspended); the exchange opens it again, and the filter then sees the context's message once
 * more: the bytes it had not taken yet, or none.
 *
 * <p>Opening may come first: the other side can make room between the moment the reader was told
 * to stop and the moment it closes the gate. The gate then stays open and the reader goes on.
 *
 * <p>No locks: every call comes on the loop that owns the connection (and its exchange). Only
 * past the stop's grace period may the stopping thread meet a loop here, as it ends what is left.
 */
public final class ReadGate {
    private FilterChainContext held;
    private boolean openedEarly;

    /**
     * Called by the reader once told to stop, with the bytes it has not taken as the context's
     * message. Returns the action to end its handleRead with: suspend, or null when the gate was
     * opened meanwhile and the reader should go on.
     */
    public NextAction close(FilterChainContext ctx) {
        if (openedEarly) {
            openedEarly = false;
            return null;
        }
        return hold(ctx);
    }

    /** Suspends the read whatever was opened before (a pipelined request waits for its turn); returns the suspend. */
    public NextAction hold(FilterChainContext ctx) {
        NextAction suspend = ctx.getSuspendAction();
        ctx.suspend();
        held = ctx;
        return suspend;
    }

    /** A read is held. */
    public boolean isClosed() {
        return held != null;
    }

    /** Reads may go on: the held context runs the reader again with the bytes it kept. */
    public void open() {
        FilterChainContext ctx = take();
        if (ctx == null) {
            openedEarly = true;
        } else {
            ctx.resume();
        }
    }

    /** The held read, no longer held (the caller resumes or drops it); null when there was none. */
    public FilterChainContext take() {
        FilterChainContext ctx = held;
        held = null;
        return ctx;
    }

    /** For a new user of the connection: an early open left by the last one does not carry over. */
    public void reset() {
        openedEarly = false;
    }

    /** The connection is gone: the held context is dropped with it, its bytes back to their pool. */
    public void discard() {
        FilterChainContext ctx = take();
        openedEarly = false;
        if (ctx != null) {
            PooledBuffers.dropHeld(ctx);
        }
    }
}
