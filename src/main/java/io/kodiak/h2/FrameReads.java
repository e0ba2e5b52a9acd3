package io.kodiak.h2;

import io.kodiak.transport.ReadGate;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.WriteHandler;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;

/**
 * How an HTTP/2 connection reads, on either side: frames handed to their listener as reads bring
 * them, and no more read while the connection's own write queue is full (replies to a peer's
 * PING and SETTINGS, or window updates, cannot pile up unread); reads go on once it has room.
 */
public final class FrameReads {
    private final FrameReader reader;
    private final Outbound out;
    private final ReadGate gate = new ReadGate();
    private final WriteHandler resume = new WriteHandler() {
        @Override
        public void onWritePossible() {
            gate.open();
        }

        @Override
        public void onError(Throwable failure) {
            gate.discard();
        }
    };

    public FrameReads(FrameReader reader, Outbound out) {
        this.reader = reader;
        this.out = out;
    }

    /** The connection stopped reading for good (a connection error, the close). */
    public interface Closed {
        boolean closed();
    }

    /**
     * Hands every frame of this read to {@code listener} until the read is used up or {@code
     * closed} says the connection ended; returns the action for the filter chain (a suspended one
     * while the write queue is full).
     */
    public NextAction read(FilterChainContext ctx, FrameReader.Listener listener, Closed closed) throws Http2Exception {
        while (!closed.closed()) {
            Buffer in = ctx.getMessage();
            if (!in.hasRemaining()) {
                break;
            }
            if (reader.next(ctx, in, listener) && !closed.closed() && !out.writeQueueHasRoom()) {
                out.whenRoom(resume);
                NextAction held = gate.close(ctx);
                if (held != null) {
                    return held;
                }
            }
        }
        return ctx.getStopAction();
    }

    /** The connection closed: a held read is let go, and the gathered frame's buffer. */
    public void closed() {
        reader.release();
        gate.discard();
    }
}
