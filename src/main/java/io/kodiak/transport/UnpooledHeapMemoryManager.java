package io.kodiak.transport;

import org.glassfish.grizzly.memory.HeapMemoryManager;
import org.glassfish.grizzly.memory.ThreadLocalPool;

/**
 * Grizzly's heap memory manager without its per-thread arenas: every buffer is an array of
 * exactly the size asked for, which the collector takes back once nothing points at it.
 *
 * <p>Why: the arenas suit a server that consumes each read before the next; a proxy hands its
 * reads on. Each socket read is copied into a slice of the reading thread's 64 KiB arena; the
 * slice goes to the other side's write queue and is released later, out of order, so the arena
 * rarely gets its space back, and whenever its remainder is smaller than a read (or a released
 * slice is adopted as the new remainder) a fresh 64 KiB array is allocated and zeroed: 15 % of
 * a profile's samples under Kodiak's codec. Measured against the arenas, exact arrays took 4-6 %
 * less CPU per request at 10 KB and the same at 512 B and 100 KB (docs/throughput.md, "Buffers:
 * heap arenas against exact arrays"); and a slice kept by a waiting connection no longer pins a
 * whole arena. Not the default: Grizzly's TLS filter decrypts each read into a 25 KB buffer and
 * trims it, which the arenas take back and this manager cannot, and that cost 13-35 % more CPU per
 * request on a TLS listener.
 */
public final class UnpooledHeapMemoryManager extends HeapMemoryManager {
    @Override
    public ThreadLocalPool createThreadLocalPool() {
        // No pool: HeapMemoryManager then allocates each buffer as an array of its own.
        return null;
    }
}
