package io.kodiak;

import io.kodiak.config.MemoryManagerName;
import org.glassfish.grizzly.memory.HeapMemoryManager;
import org.glassfish.grizzly.memory.MemoryManager;
import org.glassfish.grizzly.memory.PooledMemoryManager;

/**
 * The one memory manager both transports share. Shared because a buffer read on one side is
 * written, and so released, on the other: a pool must take buffers back from any thread.
 */
final class MemoryManagers {
    private MemoryManagers() {
    }

    static MemoryManager of(MemoryManagerName name) {
        return switch (name) {
            // Per-thread arenas of 64 KiB; a read larger than that gets a fresh array, and an
            // arena is reused only when its last slice is released on the thread that cut it.
            case HEAP -> new HeapMemoryManager();
            // Shared pools of 4, 16 and 64 KiB buffers (3 % of the maximum heap, allocated up
            // front); a written buffer goes back to its pool from whichever thread releases it.
            case POOLED -> new PooledMemoryManager();
        };
    }
}
