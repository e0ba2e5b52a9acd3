package io.kodiak.daemon;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.ReconfigureOnChangeTask;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;

import java.io.File;

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
    private long seen;

    private LogConfiguration(File file) {
        this.file = file;
        this.seen = file == null ? 0 : file.lastModified();
    }

    static LogConfiguration fromSystemProperty() {
        String path = System.getProperty("logback.configurationFile");
        return new LogConfiguration(path == null || path.isBlank() ? null : new File(path));
    }

    /** Runs logback's scan when the file changed; returns a line for the reload's report, or null when it did not. */
    String reloadIfChanged() {
        if (file == null || file.lastModified() == seen) {
            return null;
        }
        ILoggerFactory factory = LoggerFactory.getILoggerFactory();
        if (!(factory instanceof LoggerContext context)) {
            return null;
        }
        seen = file.lastModified();
        // Compares the watched files with what the context last read, and re-reads them with its
        // fallback; the same task logback schedules every scanPeriod.
        ReconfigureOnChangeTask scan = new ReconfigureOnChangeTask();
        scan.setContext(context);
        scan.run();
        return "logging configuration re-read: " + file + " (a file logback cannot use leaves the previous one in force)";
    }
}
