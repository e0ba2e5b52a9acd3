package io.kodiak.daemon;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * SIGHUP, turned into reloads on a thread of their own (a signal handler must return at once):
 * signals arriving during a reload are served one after the other, and those arriving before the
 * start is complete wait for it.
 */
final class Reloads {
    private static final Logger LOG = LoggerFactory.getLogger(Reloads.class);

    private final CountDownLatch started;
    private final ExecutorService thread = Executors.newSingleThreadExecutor(task -> {
        Thread reloading = new Thread(task, "kodiak-reload");
        reloading.setDaemon(true);
        // Created from the JVM's signal thread, which has none; Typesafe Config finds reference.conf through it.
        reloading.setContextClassLoader(Reloads.class.getClassLoader());
        return reloading;
    });
    private volatile Reloader reloader;
    private volatile ControlFiles control;

    private Reloads(CountDownLatch started) {
        this.started = started;
    }

    /** Takes SIGHUP over from the JVM (whose own handling is to exit); reloads wait for {@code started}. */
    static Reloads onSignal(CountDownLatch started) {
        Reloads reloads = new Reloads(started);
        try {
            sun.misc.SignalHandler before =
                    sun.misc.Signal.handle(new sun.misc.Signal("HUP"), signal -> reloads.thread.execute(reloads::reloadOnce));
            if (before == sun.misc.SignalHandler.SIG_IGN) {
                // The JVM leaves a signal its parent ignored (nohup) ignored: reloads would never arrive.
                LOG.warn("SIGHUP was ignored by the process that started Kodiak (nohup?): reload needs a restart;"
                        + " start it with bin/proxy.sh, which restores SIGHUP");
            }
        } catch (IllegalArgumentException e) {
            // The JVM keeps SIGHUP for itself (-Xrs, or a platform without it): reload by restart only.
            LOG.warn("SIGHUP is not available to Kodiak ({}): a configuration change needs a restart", e.getMessage());
        }
        return reloads;
    }

    /** {@code control}: null when no pid file is kept (then a reload always reads the current file). */
    void serve(Reloader reloader, ControlFiles control) {
        this.control = control;
        this.reloader = reloader;
    }

    private void reloadOnce() {
        try {
            started.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        Reloader current = reloader;
        if (current == null) {
            return;
        }
        ControlFiles files = control;
        ControlFiles.Request request = files == null ? ControlFiles.Request.SIGNAL : files.take();
        Reloader.Outcome outcome;
        if (request.problem() != null) {
            outcome = current.refusedRequest(request.problem());
        } else {
            try {
                outcome = current.reload(request.file());
            } catch (RuntimeException e) {
                // A defect outside the reload's own guard: said, so that bin/proxy.sh does not wait for nothing.
                LOG.error("reload failed", e);
                outcome = new Reloader.Outcome(Reloader.Result.FAILED, -1, request.file(), List.of("reload failed: " + e));
            }
        }
        if (files != null) {
            files.answer(request, outcome);
        }
    }
}
