package io.kodiak;

import io.kodiak.config.IoStrategyName;
import io.kodiak.config.MemoryManagerName;
import io.kodiak.transport.LoopMemoryManager;
import io.kodiak.transport.PooledBuffers;
import io.kodiak.transport.UnpooledHeapMemoryManager;
import org.glassfish.grizzly.memory.MemoryManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one memory manager both transports share. Shared because a buffer read on one side is
 * written, and so released, on the other: a pool must take buffers back from any thread.
 */
final class MemoryManagers {
    private static final Logger LOG = LoggerFactory.getLogger(MemoryManagers.class);
    private MemoryManagers() {
    }

    static MemoryManager of(MemoryManagerName name, IoStrategyName strategy) {
        if (name == MemoryManagerName.LOOP && strategy != IoStrategyName.SAME_THREAD) {
            // The loop's pools take no lock because a loop's buffers are read, written and released
            // on one thread. Under a worker strategy a loop's events move between threads, every
            // release would find its buffer foreign, and the pools would make new direct memory
            // per read for the collector to free: Grizzly's heap arenas serve better there.
            LOG.info("buffers.memory-manager = loop needs listener.io-strategy = same-thread; with {} reads use heap",
                    strategy.configName());
            return MemoryManager.DEFAULT_MEMORY_MANAGER;
        }
        return switch (name) {
            // Grizzly's default, a HeapMemoryManager: per-thread arenas of 64 KiB; a read larger
            // than that gets a fresh array, and an arena is reused only when its last slice is
            // released on the thread that cut it. The default instance rather than a new one, so
            // that Grizzly's own MEMORY_MANAGER_FACTORY property can still replace it, as
            // bin/bench.sh core --memory-manager does to measure the alternatives.
            case HEAP -> MemoryManager.DEFAULT_MEMORY_MANAGER;
            // Each read copied into an array of its own size (see UnpooledHeapMemoryManager).
            case EXACT -> new UnpooledHeapMemoryManager();
            // Shared pools of 1, 4, 16 and 64 KiB buffers (3 % of the maximum heap, allocated up
            // front); a buffer goes back to its pool once it and its slices are let go of, from
            // whichever thread (PooledBuffers). The 1 KiB pool is Kodiak's: Grizzly's smallest is
            // 4 KiB, and every exchange in flight holds its request and response header buffers.
            case POOLED -> PooledBuffers.create(false);
            // The same pools outside the heap: the system calls read into and write from them, where
            // heap buffers are copied through a per-thread direct buffer both ways.
            case DIRECT -> PooledBuffers.create(true);
            // Kodiak's own: per-loop pools of direct memory, no atomics, a buffer sized to each read.
            case LOOP -> new LoopMemoryManager();
        };
    }
}
