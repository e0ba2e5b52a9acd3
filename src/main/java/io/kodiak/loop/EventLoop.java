package io.kodiak.loop;

import org.glassfish.grizzly.nio.SelectorRunner;

/**
 * One owner of connections: the client connections registered on its selector, the upstream
 * connections their exchanges open (registered on the same selector), those exchanges, and their
 * upstream pools. Whatever touches an exchange runs on its loop; work that starts elsewhere (a
 * timer, a reload, the admin listener, a close asked by another thread) is {@linkplain #execute
 * posted} to it.
 *
 * <p>With the same-thread I/O strategy a loop is its selector thread. With a worker-pool strategy
 * it is a {@link SerialLane}: its events run on the worker pool, one at a time and in order, as
 * Netty's event executors and Vert.x's contexts run theirs.
 */
public final class EventLoop {
    private final EventLoops group;
    private final int index;
    private final SelectorRunner runner;
    /** Null when the selector thread runs the loop itself. */
    private final SerialLane lane;

    EventLoop(EventLoops group, int index, SelectorRunner runner, SerialLane lane) {
        this.group = group;
        this.index = index;
        this.runner = runner;
        this.lane = lane;
    }

    /** 0 to {@link EventLoops#count()} - 1: where this loop's share of per-loop state is kept. */
    public int index() {
        return index;
    }

    SelectorRunner runner() {
        return runner;
    }

    SerialLane lane() {
        return lane;
    }

    EventLoops group() {
        return group;
    }

    /** True on the thread that runs this loop now. */
    public boolean inLoop() {
        return lane == null ? Thread.currentThread() == runner.getRunnerThread() : lane.runsOnThisThread();
    }

    /** Runs {@code task} now when called on this loop, else posts it to the loop. */
    public void execute(Runnable task) {
        if (inLoop()) {
            task.run();
        } else {
            post(task);
        }
    }

    /** Runs {@code task} on this loop after what it is doing now, whichever thread asks. */
    public void post(Runnable task) {
        if (lane != null) {
            lane.execute(task);
        } else {
            group.enqueue(runner, task);
        }
    }

    @Override
    public String toString() {
        return "loop-" + index;
    }
}
