package io.kodiak.transport;

import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.memory.Buffers;

/** Hands bytes of a read buffer on to the other side without copying them. */
public final class Pieces {
    private Pieces() {
    }

    /**
     * The next {@code n} bytes of {@code ctx}'s read buffer. When they are all of it, the buffer
     * itself, and the context's message becomes an empty buffer: once written, the transport gives
     * the read buffer's memory back to its pool, where the memory manager has one ({@code heap}'s
     * arenas, {@code pooled}; a slice keeps it until the collector comes, and with the arenas that
     * cost a fresh 64 KiB array every few exchanges: 18 % of the CPU at 10 KB bodies). Otherwise a
     * slice sharing the buffer's memory, and the position moves past it.
     */
    public static Buffer take(FilterChainContext ctx, Buffer buffer, int n) {
        int position = buffer.position();
        if (position == 0 && n == buffer.limit() && ctx.getMessage() == buffer) {
            ctx.setMessage(Buffers.EMPTY_BUFFER);
            return buffer;
        }
        return slice(buffer, n);
    }

    /**
     * A piece that will be neither written nor copied (its exchange is over, or nobody forwards
     * it): lets go of it, so that a counting pool gets its memory back ({@link PooledBuffers}). A
     * heap slice does not allow disposal and is left to the collector.
     */
    public static void drop(Buffer piece) {
        if (piece != null) {
            piece.tryDispose();
        }
    }

    /** The next {@code n} bytes as a slice sharing the buffer's memory; the position moves past them. */
    public static Buffer slice(Buffer buffer, int n) {
        int position = buffer.position();
        Buffer piece = buffer.slice(position, position + n);
        buffer.position(position + n);
        return piece;
    }
}
