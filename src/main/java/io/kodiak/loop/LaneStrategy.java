package io.kodiak.loop;

import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.IOEvent;
import org.glassfish.grizzly.IOEventLifeCycleListener;
import org.glassfish.grizzly.strategies.AbstractIOStrategy;

import java.io.IOException;
import java.util.concurrent.Executor;
import java.util.logging.Logger;

/**
 * The worker-pool strategies under the one-owner rule: a connection's reads and writes run on its
 * loop's {@link SerialLane}, so an exchange's two connections never run on two workers at once.
 * (Grizzly fires a connection's close on the thread that closes it, past any strategy: the
 * handlers of a close post themselves to the owner.) worker-thread always hands the event to the lane; dynamic runs it on the selector thread
 * when the lane is idle and queues it otherwise. Grizzly's own leader-follower hands the selector
 * to another thread while the current one processes, which cannot keep one owner per connection:
 * under that name the lanes serve as for worker-thread (docs/architecture.md). Accepts and
 * connects stay on the selector, as with Grizzly's worker strategy; what they complete is posted
 * to the owner by whoever waits for it.
 */
final class LaneStrategy extends AbstractIOStrategy {
    private static final Logger LOG = Logger.getLogger(LaneStrategy.class.getName());
    private final EventLoops loops;
    private final boolean inlineWhenIdle;

    LaneStrategy(EventLoops loops, boolean inlineWhenIdle) {
        this.loops = loops;
        this.inlineWhenIdle = inlineWhenIdle;
    }

    @Override
    public boolean executeIoEvent(Connection connection, IOEvent ioEvent, boolean isIoEventEnabled) throws IOException {
        boolean readWrite = isReadWrite(ioEvent);
        EventLoop loop = readWrite || ioEvent == IOEvent.CLOSED ? loops.of(connection) : null;
        if (loop == null || loop.lane() == null) {
            fireIOEvent(connection, ioEvent, null, LOG);
            return true;
        }
        IOEventLifeCycleListener listener = null;
        if (readWrite) {
            // Interest off while the event waits for its lane, back on when it has run (as Grizzly's worker strategy).
            if (isIoEventEnabled) {
                connection.disableIOEvent(ioEvent);
            }
            listener = ENABLE_INTEREST_LIFECYCLE_LISTENER;
        }
        IOEventLifeCycleListener then = listener;
        Runnable task = () -> fireIOEvent(connection, ioEvent, then, LOG);
        if (inlineWhenIdle) {
            loop.lane().runNowOrQueue(task);
        } else {
            loop.lane().execute(task);
        }
        return true;
    }

    @Override
    public Executor getThreadPoolFor(Connection connection, IOEvent ioEvent) {
        EventLoop loop = loops.of(connection);
        return loop == null || loop.lane() == null ? null : loop.lane();
    }
}
