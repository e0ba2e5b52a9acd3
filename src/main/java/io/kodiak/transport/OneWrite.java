package io.kodiak.transport;

import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.CompositeBuffer;
import org.glassfish.grizzly.memory.MemoryManager;

/**
 * Puts several buffers into one write. Small ones are copied into one array: Grizzly copies heap
 * bytes into a direct buffer for the system call anyway, and a composite buffer costs more to walk
 * than a few hundred bytes cost to copy (measured: BuffersBuffer creation and gathering were 7 % of
 * the exchange's CPU at 512 B). Larger ones are chained in a composite, never copied. Either way
 * the parts are let go of as if each had been written alone ({@link PooledBuffers}).
 */
public final class OneWrite {
    /** Up to this many bytes in all, buffers are copied together rather than chained. */
    public static final int COPY_LIMIT = 4096;

    private OneWrite() {
    }

    /**
     * {@code kept} then {@code second}, where {@code kept} stays as it is (a prepared request head,
     * kept for a retry): copied by its absolute position when both are small, which saves the
     * duplicate (a wrapper and a JDK view) that {@link #of} would consume instead.
     */
    public static Buffer ofKept(MemoryManager memory, Buffer kept, Buffer second) {
        int a = kept.remaining();
        int b = second.remaining();
        if (a + b > COPY_LIMIT || !PooledBuffers.countsSlices(memory)) {
            return of(memory, kept.duplicate(), second);
        }
        Buffer out = memory.allocate(a + b);
        out.put(kept, kept.position(), a);
        out.put(second);
        out.flip();
        out.allowBufferDispose(true);
        second.tryDispose();
        return out;
    }

    /** {@code first} then {@code second}, consumed (their positions move to their limits when copied). */
    public static Buffer of(MemoryManager memory, Buffer first, Buffer second) {
        int a = first.remaining();
        int b = second.remaining();
        if (a + b <= COPY_LIMIT) {
            Buffer both = copyOf(memory, a + b, first, second);
            // Copied: pieces of pooled read buffers go back now (arrays of our own and heap slices
            // do not allow disposal, and stay as they are).
            first.tryDispose();
            second.tryDispose();
            return both;
        }
        CompositeBuffer chained = CompositeBuffer.newBuffer(memory);
        // Released once written, the chain releases its parts: the same as writing each alone.
        chained.allowBufferDispose(true);
        chained.allowInternalBuffersDispose(true);
        chained.append(first);
        chained.append(second);
        return chained;
    }

    /** {@code size} bytes from {@code parts}: from the pools of a manager that counts slices, else an array. */
    private static Buffer copyOf(MemoryManager memory, int size, Buffer first, Buffer second) {
        if (PooledBuffers.countsSlices(memory)) {
            Buffer out = memory.allocate(size);
            out.put(first);
            out.put(second);
            out.flip();
            out.allowBufferDispose(true);
            return out;
        }
        byte[] both = new byte[size];
        int a = first.remaining();
        first.get(both, 0, a);
        second.get(both, a, size - a);
        return Buffers.wrap(memory, both);
    }
}
