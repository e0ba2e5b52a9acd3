package io.kodiak.upstream;

import io.kodiak.transport.Deadline;
import org.glassfish.grizzly.CompletionHandler;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.utils.DelayedExecutor;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Bounds the connects an exchange asks for outside the pool (the retry after a stale pooled
 * connection) by connect-timeout: Grizzly times out only the connects the pool makes itself, and
 * an unanswered SYN would otherwise hold the exchange until the kernel gives up (about 2 minutes).
 * Whichever comes first, the connect's outcome or the deadline, settles the attempt; a connection
 * that arrives after the deadline is closed. One queue serves every pool (a pool a reload retires
 * leaves nothing behind in the timer).
 */
final class FreshConnects {
    private final DelayedExecutor.DelayQueue<Attempt> queue;

    FreshConnects(DelayedExecutor timers) {
        this.queue = timers.createDelayQueue(new Expiry(), Deadline.resolver(attempt -> attempt.deadline));
    }

    /** Starts the clock ({@code timeoutMillis}) for one connect; the returned attempt settles it. */
    Attempt start(CompletionHandler<Connection> handler, long timeoutMillis) {
        Attempt attempt = new Attempt(handler);
        queue.add(attempt, timeoutMillis, TimeUnit.MILLISECONDS);
        return attempt;
    }

    static final class Attempt {
        private final CompletionHandler<Connection> handler;
        private final AtomicBoolean settled = new AtomicBoolean();
        private final Deadline deadline = new Deadline();

        private Attempt(CompletionHandler<Connection> handler) {
            this.handler = handler;
        }

        /** True for the first caller only: the connect's outcome or the deadline. */
        boolean settle() {
            if (!settled.compareAndSet(false, true)) {
                return false;
            }
            // Settled: the timer drops the attempt at its next scan.
            deadline.close();
            return true;
        }

        CompletionHandler<Connection> handler() {
            return handler;
        }
    }

    private static final class Expiry implements DelayedExecutor.Worker<Attempt> {
        @Override
        public boolean doWork(Attempt attempt) {
            if (attempt.settle()) {
                attempt.handler.failed(new TimeoutException("connect timed out"));
            }
            return true;
        }
    }
}
