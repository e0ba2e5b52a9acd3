import org.glassfish.grizzly.memory.ByteBufferManager;
import org.glassfish.grizzly.memory.DefaultMemoryManagerFactory;
import org.glassfish.grizzly.memory.HeapMemoryManager;
import org.glassfish.grizzly.memory.MemoryManager;

/**
 * Lets bench/core/run.sh --memory-manager measure Kodiak with another Grizzly memory manager, through
 * Grizzly's own org.glassfish.grizzly.MEMORY_MANAGER_FACTORY property: kept to re-run the measurement
 * behind Kodiak's choice of the default heap manager (README, "What the tuning so far bought").
 *   heap    Grizzly's default: reads land in a thread-local direct buffer and are copied to heap
 *   direct  ByteBufferManager(direct): reads land in the buffer that is forwarded, writes need no copy
 */
public class MemoryManagerChoice implements DefaultMemoryManagerFactory {
    @Override
    public MemoryManager createMemoryManager() {
        return "direct".equals(System.getProperty("bench.memory-manager"))
                ? new ByteBufferManager(true) : new HeapMemoryManager();
    }
}
