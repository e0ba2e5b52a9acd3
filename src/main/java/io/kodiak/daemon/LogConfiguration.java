package io.kodiak.daemon;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.ReconfigureOnChangeTask;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Logback's configuration file (conf/logback.xml, given by bin/proxy.sh as
 * {@code -Dlogback.configurationFile}), re-read by a reload when it changed since, so that a
 * changed level applies at once rather than at logback's own next scan. The re-reading is
 * logback's own scan task, run now: a file that does not parse leaves the last good
 * configuration in force (logback falls back to it and says why on the console log), rather than
 * no logging at all.
 */
final class LogConfiguration {
    private final File file;
    private final LoggerContext context;
    private long seen;

    LogConfiguration(File file, LoggerContext context) {
        this.file = file;
        this.context = context;
        this.seen = file == null ? 0 : file.lastModified();
    }

    static LogConfiguration fromSystemProperty() {
        String path = System.getProperty("logback.configurationFile");
        ILoggerFactory factory = LoggerFactory.getILoggerFactory();
        return new LogConfiguration(path == null || path.isBlank() ? null : new File(path),
                factory instanceof LoggerContext context ? context : null);
    }

    /**
     * Runs logback's scan when the file changed; returns a line for the reload's report, or null
     * when it did not. Whatever logback does, the reload that asked stands: a failure here is a
     * line of the report, not a failed reload.
     */
    String reloadIfChanged() {
        if (file == null || context == null || file.lastModified() == seen) {
            return null;
        }
        seen = file.lastModified();
        // Compares the watched files with what the context last read, and re-reads them with its
        // fallback; the same task logback schedules every scanPeriod. Once it sees a change it
        // cancels its own next run, which a task run by hand does not have: it is given one to cancel.
        ReconfigureOnChangeTask scan = new ReconfigureOnChangeTask();
        scan.setContext(context);
        ScheduledFuture<?> ownNextRun = context.getScheduledExecutorService().schedule(() -> { }, 1, TimeUnit.DAYS);
        scan.setScheduredFuture(ownNextRun);
        try {
            scan.run();
        } catch (RuntimeException e) {
            return "logging configuration not re-read (" + e + "); logback's own report is in the console log";
        } finally {
            ownNextRun.cancel(false);
        }
        return "logging configuration re-read: " + file + " (a file logback cannot parse leaves the previous one in force)";
    }
}
