package io.kodiak.upstream;

import org.glassfish.grizzly.utils.DelayedExecutor;

import java.util.ArrayList;
import java.util.List;

/**
 * The timer one Grizzly connection pool sees: its queues (connect and poll timeouts, keep-alive
 * cleaning, ...) go on the proxy's shared timer, and are taken off it when the pool closes.
 * Grizzly's SingleEndpointPool destroys them only when it owns its timer, so with a shared one
 * each pool a reload retires would leave its empty queues behind for the timer to scan forever.
 * Never started itself: it only hands out the shared timer's queues.
 */
final class PoolTimers extends DelayedExecutor {
    private final DelayedExecutor shared;
    // Guarded by this.
    private final List<DelayQueue<?>> queues = new ArrayList<>();

    PoolTimers(DelayedExecutor shared) {
        super(shared.getThreadPool());
        this.shared = shared;
    }

    @Override
    public <E> DelayQueue<E> createDelayQueue(Worker<E> worker, Resolver<E> resolver) {
        DelayQueue<E> queue = shared.createDelayQueue(worker, resolver);
        synchronized (this) {
            queues.add(queue);
        }
        return queue;
    }

    /** Takes the pool's queues off the shared timer (the pool is closed: nothing in them matters). */
    synchronized void release() {
        queues.forEach(DelayQueue::destroy);
        queues.clear();
    }
}
