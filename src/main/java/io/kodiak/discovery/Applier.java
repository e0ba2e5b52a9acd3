package io.kodiak.discovery;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs the groups' rebuild after answers change, on a thread of its own: the rebuild waits for a
 * reload in progress (they take the same lock), and the resolver threads must not wait with it.
 * Changes that come while a rebuild is pending are applied by that one rebuild.
 */
final class Applier {
    private static final Logger LOG = LoggerFactory.getLogger(Applier.class);

    private final Runnable rebuild;
    private final ExecutorService thread = Executors.newSingleThreadExecutor(new DaemonThreads("kodiak-discovery"));
    private final AtomicBoolean pending = new AtomicBoolean();

    Applier(Runnable rebuild) {
        this.rebuild = rebuild;
    }

    void request() {
        if (pending.compareAndSet(false, true)) {
            try {
                thread.execute(this::run);
            } catch (java.util.concurrent.RejectedExecutionException stopped) {
                pending.set(false);
            }
        }
    }

    private void run() {
        // Cleared before the rebuild reads the answers: a change after this point asks for another.
        pending.set(false);
        try {
            rebuild.run();
        } catch (RuntimeException e) {
            LOG.error("applying changed DNS answers to the upstream groups failed; the groups in service stay", e);
        }
    }

    void stop() {
        thread.shutdownNow();
    }
}
