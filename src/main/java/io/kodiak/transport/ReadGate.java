package io.kodiak.transport;

import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;

/**
 * Stops and restarts reads on one connection. The reading filter closes the gate with its
 * context (Grizzly reads nothing more from a connection whose read context is suspended); any
 * thread opens it again, and the filter then sees the context's message once more: the bytes it
 * had not taken yet, or none.
 *
 * <p>Opening may come first: the other side can make room between the moment the reader was told
 * to stop and the moment it closes the gate. The gate then stays open and the reader goes on.
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
        synchronized (this) {
            if (openedEarly) {
                openedEarly = false;
                return null;
            }
            NextAction suspend = ctx.getSuspendAction();
            ctx.suspend();
            held = ctx;
            return suspend;
        }
    }

    /** Reads may go on: the held context runs the reader again with the bytes it kept. */
    public void open() {
        FilterChainContext ctx;
        synchronized (this) {
            ctx = held;
            held = null;
            if (ctx == null) {
                openedEarly = true;
                return;
            }
        }
        ctx.resume();
    }

    /** For a new user of the connection: an early open left by the last one does not carry over. */
    public synchronized void reset() {
        openedEarly = false;
    }

    /** The connection is gone: the held context is dropped with it. */
    public void discard() {
        FilterChainContext ctx;
        synchronized (this) {
            ctx = held;
            held = null;
            openedEarly = false;
        }
        if (ctx != null) {
            PooledBuffers.dropHeld(ctx);
        }
    }
}
