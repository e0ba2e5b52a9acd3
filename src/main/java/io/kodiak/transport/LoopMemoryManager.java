package io.kodiak.transport;

import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.ByteBufferWrapper;
import org.glassfish.grizzly.memory.MemoryManager;
import org.glassfish.grizzly.memory.MemoryProbe;
import org.glassfish.grizzly.memory.WrapperAware;
import org.glassfish.grizzly.monitoring.DefaultMonitoringConfig;
import org.glassfish.grizzly.monitoring.MonitoringConfig;

import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Kodiak's own memory manager ({@code buffers.memory-manager = loop}): direct memory in pools
 * that belong to the thread that runs a loop, with no atomics, because a buffer read on a loop is
 * written and released on that same loop (docs/architecture.md, the thread model).
 *
 * <p>A socket read lands in the transport's per-thread direct buffer, and exactly what was read
 * is copied into a pooled buffer of the smallest size class that holds it ({@link #allocate}):
 * an idle connection, or a request waiting for its upstream, holds no buffer, and a 300-byte head
 * takes a 512-byte buffer, not 64 KiB. Reads go up to 256 KiB, so a 100 KB body is one system call. Body pieces travel as slices of that buffer and are written
 * to the other side from it, with no copy into a JDK direct buffer. A buffer goes back to its
 * pool when it and every slice cut from it were disposed (written, copied or dropped).
 *
 * <p>Counts are plain fields, touched only by the owning thread. A buffer sliced or disposed on
 * another thread (a close asked from elsewhere releases a write queue there) is never pooled
 * again: its memory goes to the collector, which is correct and rare. A thread that is no loop
 * (the timer, the admin listener) gets pools of its own the first time it allocates.
 */
public final class LoopMemoryManager implements MemoryManager<Buffer>, WrapperAware {
    /** Size classes: 512 B, 2, 8, 32, 128 and 256 KiB (a socket read is at most the largest; see {@link PooledBuffers#sizeReads}). */
    static final int[] SIZES = {512, 2 * 1024, 8 * 1024, 32 * 1024, 128 * 1024, 256 * 1024};
    /** The largest read: one system call takes a 100 KB body whole, where 64 KiB reads took two. */
    public static final int LARGEST_READ = 256 * 1024;
    /**
     * Free memory kept per size class and thread, up to {@link #KEPT_PER_CLASS} buffers (48 MiB
     * at most per loop over the six classes): a pool grows to what its loop holds at once at its
     * busiest, and a buffer released beyond it goes to the collector (caps of 32 and 256 MiB
     * measured no better at 100 KB bodies and 640 connections).
     */
    private static final int KEPT_BYTES_PER_CLASS = 8 * 1024 * 1024;
    private static final int KEPT_PER_CLASS = 4096;

    private final ThreadLocal<Pools> pools = ThreadLocal.withInitial(Pools::new);
    /** Every live thread's pools, for the gauges: joined once per thread, never on the steady path. */
    private final CopyOnWriteArrayList<Pools> everyThread = new CopyOnWriteArrayList<>();
    private final WrapperAware heap = (WrapperAware) MemoryManager.DEFAULT_MEMORY_MANAGER;
    private final DefaultMonitoringConfig<MemoryProbe> monitoring = new DefaultMonitoringConfig<>(MemoryProbe.class);

    @Override
    public Buffer allocate(int size) {
        int sizeClass = classOf(size);
        if (sizeClass < 0) {
            // Larger than any read: rare (a TLS record's plaintext is at most 16 KiB), and not pooled.
            return new ByteBufferWrapper(ByteBuffer.allocateDirect(size));
        }
        return pools.get().take(sizeClass, size);
    }

    @Override
    public Buffer allocateAtLeast(int size) {
        int sizeClass = classOf(size);
        return sizeClass < 0 ? allocate(size) : pools.get().take(sizeClass, SIZES[sizeClass]);
    }

    @Override
    public Buffer reallocate(Buffer oldBuffer, int newSize) {
        Buffer grown = allocate(newSize);
        int position = oldBuffer.position();
        oldBuffer.flip();
        grown.put(oldBuffer);
        grown.position(position);
        oldBuffer.tryDispose();
        return grown;
    }

    @Override
    public void release(Buffer buffer) {
        buffer.tryDispose();
    }

    /**
     * False, so that Grizzly reads each socket read into its per-thread direct buffer and copies
     * exactly what came into {@link #allocate}: a buffer sized to the read, from the pool.
     */
    @Override
    public boolean willAllocateDirect(int size) {
        return false;
    }

    @Override
    public MonitoringConfig<MemoryProbe> getMonitoringConfig() {
        return monitoring;
    }

    /** Buffers taken from the calling thread's pools and not yet back (nor given up to the collector): 0 when nothing leaks. */
    public long outstanding() {
        return pools.get().outstanding;
    }

    /** Buffers the calling thread's pools made so far (each one is then reused until it is given up). */
    public long made() {
        return pools.get().made;
    }

    /**
     * Pooled buffers handed out by every thread's pools and not yet back. Read from another thread
     * (a metrics scrape): each count is a plain field of its owner, so the sum is a moment's estimate.
     */
    public long inUse() {
        long sum = 0;
        for (Pools each : everyThread) {
            sum += each.outstanding;
        }
        return sum;
    }

    /** Direct memory the pools hold, handed out or free, every thread together: an estimate, as {@link #inUse}. */
    public long pooledBytes() {
        long sum = 0;
        for (Pools each : everyThread) {
            sum += each.outstandingBytes;
            for (int i = 0; i < SIZES.length; i++) {
                sum += (long) each.count[i] * SIZES[i];
            }
        }
        return sum;
    }

    private static int classOf(int size) {
        for (int i = 0; i < SIZES.length; i++) {
            if (size <= SIZES[i]) {
                return i;
            }
        }
        return -1;
    }

    // Arrays wrapped as they are, on the heap (heads built by Kodiak, fixed answers).

    @Override
    public Buffer wrap(byte[] data) {
        return heap.wrap(data);
    }

    @Override
    public Buffer wrap(byte[] data, int offset, int length) {
        return heap.wrap(data, offset, length);
    }

    @Override
    public Buffer wrap(String s) {
        return heap.wrap(s);
    }

    @Override
    public Buffer wrap(String s, Charset charset) {
        return heap.wrap(s, charset);
    }

    @Override
    public Buffer wrap(ByteBuffer byteBuffer) {
        return heap.wrap(byteBuffer);
    }

    /** One thread's pools: a stack of free memory per size class. */
    private final class Pools {
        private final Thread owner = Thread.currentThread();
        private final Memory[][] free = new Memory[SIZES.length][];
        private final int[] count = new int[SIZES.length];
        long outstanding;
        long outstandingBytes;
        long made;

        Pools() {
            for (int i = 0; i < SIZES.length; i++) {
                free[i] = new Memory[Math.min(KEPT_PER_CLASS, KEPT_BYTES_PER_CLASS / SIZES[i])];
            }
            // A thread that ended (a short-lived admin or timer thread) leaves its memory to the collector.
            everyThread.removeIf(each -> !each.owner.isAlive());
            everyThread.add(this);
        }

        LoopBuffer take(int sizeClass, int size) {
            Memory memory;
            int n = count[sizeClass];
            if (n > 0) {
                memory = free[sizeClass][--n];
                free[sizeClass][n] = null;
                count[sizeClass] = n;
            } else {
                memory = new Memory(this, sizeClass);
                made++;
            }
            outstanding++;
            outstandingBytes += SIZES[sizeClass];
            memory.refs = 1;
            ByteBuffer view = memory.bytes;
            view.clear().limit(size);
            LoopBuffer buffer = new LoopBuffer(memory, view);
            // As Grizzly's pooled buffers: whoever writes or copies it lets go of it.
            buffer.allowBufferDispose(true);
            return buffer;
        }

        /** On the owner: all of {@code memory}'s buffers are disposed. */
        void give(Memory memory) {
            outstanding--;
            outstandingBytes -= SIZES[memory.sizeClass];
            int n = count[memory.sizeClass];
            if (n < free[memory.sizeClass].length) {
                free[memory.sizeClass][n] = memory;
                count[memory.sizeClass] = n + 1;
            }
        }

        /** On the owner: {@code memory} is given up to the collector (touched by another thread). */
        void lose(Memory memory) {
            outstanding--;
            outstandingBytes -= SIZES[memory.sizeClass];
        }

        boolean owned() {
            return Thread.currentThread() == owner;
        }
    }

    /** A pooled block of direct memory and the count of buffers using it. */
    private static final class Memory {
        final Pools pools;
        final int sizeClass;
        final ByteBuffer bytes;
        /** Buffers cut from this memory not yet disposed: touched on the owner only. */
        int refs;
        /** Touched by another thread: never pooled again. Written by that thread, read by the owner. */
        volatile boolean escaped;

        Memory(Pools pools, int sizeClass) {
            this.pools = pools;
            this.sizeClass = sizeClass;
            this.bytes = ByteBuffer.allocateDirect(SIZES[sizeClass]);
        }

        void retain() {
            if (pools.owned()) {
                refs++;
            } else {
                escaped = true;
            }
        }

        void release(boolean counted) {
            if (!pools.owned()) {
                escaped = true;
                return;
            }
            if (counted && --refs == 0) {
                if (escaped) {
                    pools.lose(this);
                } else {
                    pools.give(this);
                }
            }
        }
    }

    /**
     * A buffer over pooled memory: the one a read or an allocation made, or a slice of it. Each
     * holds the memory once, and lets go of it at its first dispose.
     */
    private static final class LoopBuffer extends ByteBufferWrapper {
        private final Memory memory;
        /** Counted in the memory's refs (cut on the owner); a buffer cut elsewhere is not, and marked the memory escaped. */
        private final boolean counted;
        private boolean disposed;

        LoopBuffer(Memory memory, ByteBuffer view) {
            super(view);
            this.memory = memory;
            this.counted = true;
        }

        private LoopBuffer(Memory memory, ByteBuffer view, boolean counted) {
            super(view);
            this.memory = memory;
            this.counted = counted;
        }

        @Override
        protected ByteBufferWrapper wrapByteBuffer(ByteBuffer byteBuffer) {
            boolean owned = memory.pools.owned();
            memory.retain();
            LoopBuffer cut = new LoopBuffer(memory, byteBuffer, owned);
            // Written pieces are released by the writer.
            cut.allowBufferDispose(true);
            return cut;
        }

        @Override
        public void dispose() {
            if (disposed) {
                return;
            }
            prepareDispose();
            disposed = true;
            visible = null;
            memory.release(counted);
        }
    }
}
