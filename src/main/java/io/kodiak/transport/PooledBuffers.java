package io.kodiak.transport;

import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;
import org.glassfish.grizzly.memory.MemoryManager;
import org.glassfish.grizzly.memory.PooledMemoryManager;
import org.glassfish.grizzly.nio.transport.TCPNIOTransport;

/**
 * Buffers from shared pools ({@code buffers.memory-manager = pooled} on the heap, {@code direct}
 * outside it), and the rules that give them back.
 *
 * <p>Grizzly's {@link PooledMemoryManager} counts the slices cut from a buffer: the buffer goes
 * back to its pool once it and every slice of it have been disposed, from whatever thread. Kodiak
 * hands a read's bytes to the other side as slices, so a pool works only if each party lets go of
 * what it holds: the reading filter its read buffer once it has taken it apart ({@link
 * #afterRead}), the writer each piece once written (Grizzly releases what it wrote) or copied
 * ({@link OneWrite}, {@code ChunkFramer}). A buffer nobody releases is not lost, only not reused:
 * the collector takes it and the pool makes a new one, which with direct buffers is the cost the
 * pool is there to avoid.
 *
 * <p>Only a counting pool gets its read buffers released. Grizzly's heap arenas count nothing: a
 * released buffer's space is handed out to the next read at once, under the slices of it still
 * waiting in a write queue.
 */
public final class PooledBuffers {
    /** The smallest pool's buffers: every exchange in flight holds its heads in buffers about this size. */
    private static final int SMALLEST = 1024;
    /** Pools of 1, 4, 16 and 64 KiB: each four times the one before (a shift of 2). */
    private static final int POOLS = 4;
    private static final int GROWTH_SHIFT = 2;
    /** The largest pool's buffers; a socket read is sized to fit one (see {@link #sizeReads}). */
    public static final int LARGEST = SMALLEST << (GROWTH_SHIFT * (POOLS - 1));
    /** Of the maximum heap, what the pools hold together, allocated at start. */
    private static final float SHARE_OF_HEAP = 0.03f;

    private PooledBuffers() {
    }

    /** Shared pools of heap arrays ({@code direct} false) or of direct buffers, one slice per core each. */
    public static MemoryManager create(boolean direct) {
        int slices = Runtime.getRuntime().availableProcessors();
        return direct ? new DirectPools(slices) : new PooledMemoryManager(SMALLEST, POOLS, GROWTH_SHIFT, slices,
                SHARE_OF_HEAP, 1.0f, false);
    }

    /**
     * Direct pools that sockets read into. Grizzly's pooled manager says it never allocates direct
     * buffers, whatever it holds, so the transport reads into its per-thread direct buffer and then
     * copies the bytes into a pooled one; saying so, each read lands in the pooled buffer that
     * travels on (one 64 KiB buffer, as {@link #sizeReads} sizes reads).
     */
    private static final class DirectPools extends PooledMemoryManager {
        DirectPools(int slices) {
            super(SMALLEST, POOLS, GROWTH_SHIFT, slices, SHARE_OF_HEAP, 1.0f, true);
        }

        @Override
        public boolean willAllocateDirect(int size) {
            return true;
        }
    }

    /** True when {@code memory} takes buffers back only once all their slices are disposed. */
    public static boolean countsSlices(MemoryManager memory) {
        return memory instanceof PooledMemoryManager || memory instanceof LoopMemoryManager;
    }

    /**
     * Socket reads no larger than the largest pooled buffer. Grizzly sizes each read to the socket's
     * receive buffer (200 KiB and more on Linux), which a pool serves as a chain of 64 KiB buffers
     * (read into with a scattering system call under {@code direct}, copied into piece by piece
     * under {@code pooled}) that the codec then walks piece by piece; one buffer per read is
     * cheaper. Other managers' reads are left as Grizzly sizes them.
     */
    public static void sizeReads(TCPNIOTransport transport) {
        if (transport.getMemoryManager() instanceof LoopMemoryManager) {
            transport.setReadBufferSize(LoopMemoryManager.LARGEST_READ);
        } else if (countsSlices(transport.getMemoryManager())) {
            transport.setReadBufferSize(LARGEST);
        }
    }

    /**
     * A reading filter's handleRead ends with {@code next}: unless that suspends the context (which
     * keeps its message for the next pass), the filter is done with the read buffer, every byte of
     * it taken (as slices, which keep its memory until they are released), copied or dropped. Gives
     * it back to a counting pool; with other managers, nothing. Returns {@code next}.
     */
    public static NextAction afterRead(FilterChainContext ctx, NextAction next) {
        if (next != ctx.getSuspendAction() && countsSlices(ctx.getMemoryManager())
                && ctx.getMessage() instanceof Buffer buffer) {
            buffer.tryDispose();
        }
        return next;
    }

    /**
     * A suspended read that will not be resumed (its connection is closing): its unread bytes go
     * back to a counting pool before the context is recycled (recycling drops the message without
     * letting go of it).
     */
    public static void dropHeld(FilterChainContext held) {
        if (countsSlices(held.getMemoryManager()) && held.getMessage() instanceof Buffer buffer) {
            buffer.tryDispose();
        }
        held.completeAndRecycle();
    }
}
