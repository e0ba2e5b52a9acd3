package io.kodiak.daemon;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.core.joran.spi.JoranException;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;

import java.io.File;

/**
 * Logback's configuration file (conf/logback.xml, given by bin/proxy.sh as
 * {@code -Dlogback.configurationFile}), re-read by a reload when it changed since it was read, so
 * a changed level applies at once rather than at logback's own next scan.
 */
final class LogConfiguration {
    private final File file;
    private long readAt;

    private LogConfiguration(File file) {
        this.file = file;
        this.readAt = file == null ? 0 : file.lastModified();
    }

    static LogConfiguration fromSystemProperty() {
        String path = System.getProperty("logback.configurationFile");
        return new LogConfiguration(path == null || path.isBlank() ? null : new File(path));
    }

    /** Re-reads the file when it changed; returns a line for the reload's report, or null when nothing was done. */
    String reloadIfChanged() {
        if (file == null || file.lastModified() == readAt) {
            return null;
        }
        ILoggerFactory factory = LoggerFactory.getILoggerFactory();
        if (!(factory instanceof LoggerContext context)) {
            return null;
        }
        readAt = file.lastModified();
        JoranConfigurator configurator = new JoranConfigurator();
        configurator.setContext(context);
        // Logback's own re-scan does the same: a reset, then the file; the access log's queue is flushed by the reset.
        context.reset();
        try {
            configurator.doConfigure(file);
            return "logging configuration re-read: " + file;
        } catch (JoranException e) {
            return "logging configuration " + file + " could not be read (" + e.getMessage() + "); see the console log";
        }
    }
}
