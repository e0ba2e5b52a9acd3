package io.kodiak.daemon;

import io.kodiak.admin.ReloadService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Reloads, from SIGHUP and from the admin listener's POST /reload, on a thread of their own (a
 * signal handler must return at once, an admin thread must not wait): requests arriving during a
 * reload are served one after the other, and those arriving before the start is complete wait for it.
 */
final class Reloads implements ReloadService {
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

    private Reloads(CountDownLatch started) {
        this.started = started;
    }

    /** Takes SIGHUP over from the JVM (whose own handling is to exit); reloads wait for {@code started}. */
    static Reloads onSignal(CountDownLatch started) {
        Reloads reloads = new Reloads(started);
        try {
            sun.misc.SignalHandler before = sun.misc.Signal.handle(new sun.misc.Signal("HUP"),
                    signal -> reloads.thread.execute(() -> reloads.reloadOnce(null)));
            if (before == sun.misc.SignalHandler.SIG_IGN) {
                // The JVM leaves a signal its parent ignored (nohup) ignored: reloads would never arrive.
                LOG.warn("SIGHUP was ignored by the process that started Kodiak (nohup?): reload by signal needs a"
                        + " restart; bin/proxy.sh reload (the admin listener) still works");
            }
        } catch (IllegalArgumentException e) {
            // The JVM keeps SIGHUP for itself (-Xrs, or a platform without it): reload through the admin listener.
            LOG.warn("SIGHUP is not available to Kodiak ({}): reload with bin/proxy.sh reload", e.getMessage());
        }
        return reloads;
    }

    void serve(Reloader reloader) {
        this.reloader = reloader;
    }

    @Override
    public CompletableFuture<Answer> reload(String configFile) {
        return CompletableFuture.supplyAsync(() -> answer(reloadOnce(configFile == null ? null : new File(configFile))),
                thread);
    }

    @Override
    public boolean inService(String configFile) {
        Reloader current = reloader;
        return current != null && current.inService(new File(configFile));
    }

    private Reloader.Outcome reloadOnce(File file) {
        try {
            started.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Reloader.Outcome(Reloader.Result.FAILED, -1, file, List.of("interrupted"), List.of());
        }
        Reloader current = reloader;
        if (current == null) {
            return new Reloader.Outcome(Reloader.Result.FAILED, -1, file, List.of("Kodiak did not start"), List.of());
        }
        try {
            return current.reload(file);
        } catch (RuntimeException e) {
            // A defect outside the reload's own guard: said, so that whoever asked does not wait for nothing.
            LOG.error("reload failed", e);
            return new Reloader.Outcome(Reloader.Result.FAILED, -1, file, List.of("reload failed: " + e), List.of());
        }
    }

    private static Answer answer(Reloader.Outcome outcome) {
        return new Answer(outcome.result().name().toLowerCase(Locale.ROOT), outcome.generation(),
                outcome.file() == null ? null : outcome.file().getAbsolutePath(), outcome.lines(), outcome.restartOnly());
    }
}
