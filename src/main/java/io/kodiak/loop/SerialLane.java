package io.kodiak.loop;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A loop's tasks run on a shared worker pool one at a time, in the order they were posted: at any
 * moment at most one thread runs a given loop, and so a given exchange. A batch runs at most
 * {@link #BATCH} tasks before the lane goes back to the pool's queue, so one busy loop cannot keep
 * a worker from the others.
 */
final class SerialLane implements Executor {
    private static final Logger LOG = LoggerFactory.getLogger(SerialLane.class);
    private static final int BATCH = 256;
    /** The lane the current thread runs now, if any. */
    private static final ThreadLocal<SerialLane> RUNNING = new ThreadLocal<>();

    private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    /** Set while a batch is queued on the pool or running (on the pool, or inline on a selector). */
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final Executor pool;
    private final Runnable batch = this::runBatch;
    EventLoop loop;

    SerialLane(Executor pool) {
        this.pool = pool;
    }

    boolean runsOnThisThread() {
        return RUNNING.get() == this;
    }

    static EventLoop current() {
        SerialLane lane = RUNNING.get();
        return lane == null ? null : lane.loop;
    }

    @Override
    public void execute(Runnable task) {
        tasks.add(task);
        if (scheduled.compareAndSet(false, true)) {
            schedule();
        }
    }

    /**
     * Queues a batch on the pool. A pool already shut down (the proxy stops) refuses it: the
     * batch runs on the calling thread then, when no worker runs any lane any more.
     */
    private void schedule() {
        try {
            pool.execute(batch);
        } catch (java.util.concurrent.RejectedExecutionException stopped) {
            runBatch();
        }
    }

    /**
     * The dynamic strategy's choice: runs {@code task} on the calling (selector) thread when the
     * lane is idle, else queues it behind the lane's work, which a worker then runs.
     */
    void runNowOrQueue(Runnable task) {
        if (tasks.isEmpty() && scheduled.compareAndSet(false, true)) {
            SerialLane before = RUNNING.get();
            RUNNING.set(this);
            try {
                task.run();
            } finally {
                RUNNING.set(before);
                release();
            }
        } else {
            execute(task);
        }
    }

    private void runBatch() {
        SerialLane before = RUNNING.get();
        RUNNING.set(this);
        try {
            Runnable task;
            for (int n = 0; n < BATCH && (task = tasks.poll()) != null; n++) {
                try {
                    task.run();
                } catch (RuntimeException | Error e) {
                    LOG.error("{}: a task failed", loop, e);
                }
            }
        } finally {
            RUNNING.set(before);
            release();
        }
    }

    /** Lets the lane go; picks it up again when tasks came meanwhile. */
    private void release() {
        scheduled.set(false);
        if (!tasks.isEmpty() && scheduled.compareAndSet(false, true)) {
            schedule();
        }
    }
}
