package io.kodiak.transport;

import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.CompositeBuffer;
import org.glassfish.grizzly.memory.MemoryManager;

/**
 * Puts several buffers into one write. Small ones are copied into one array: Grizzly copies heap
 * bytes into a direct buffer for the system call anyway, and a composite buffer costs more to walk
 * than a few hundred bytes cost to copy (measured: BuffersBuffer creation and gathering were 7 % of
 * the exchange's CPU at 512 B). Larger ones are chained in a composite, never copied.
 */
public final class OneWrite {
    /** Up to this many bytes in all, buffers are copied together rather than chained. */
    public static final int COPY_LIMIT = 4096;

    private OneWrite() {
    }

    /** {@code first} then {@code second}, consumed (their positions move to their limits when copied). */
    public static Buffer of(MemoryManager memory, Buffer first, Buffer second) {
        int a = first.remaining();
        int b = second.remaining();
        if (a + b <= COPY_LIMIT) {
            byte[] both = new byte[a + b];
            first.get(both, 0, a);
            second.get(both, a, b);
            return Buffers.wrap(memory, both);
        }
        CompositeBuffer chained = CompositeBuffer.newBuffer(memory);
        // The parts are slices of read buffers or arrays of our own: nothing to give back to a pool.
        chained.allowInternalBuffersDispose(false);
        chained.append(first);
        chained.append(second);
        return chained;
    }
}
