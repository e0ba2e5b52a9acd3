package io.kodiak.support;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * The access log's lines while open: the "kodiak.access" logger switched on (the test logback.xml
 * keeps it off) and its lines kept in memory; closing restores the logger.
 */
public final class AccessLogLines implements AutoCloseable {
    private final Logger access = (Logger) LoggerFactory.getLogger("kodiak.access");
    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
    private final Level before;

    public AccessLogLines() {
        lines.start();
        before = access.getLevel();
        access.addAppender(lines);
        access.setLevel(Level.INFO);
    }

    /**
     * The lines so far, as formatted. Read under the appender's lock: the loops append under it
     * (AppenderBase.doAppend), and a read beside an append failed with ConcurrentModificationException.
     */
    public List<String> lines() {
        synchronized (lines) {
            return lines.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
        }
    }

    @Override
    public void close() {
        access.detachAppender(lines);
        access.setLevel(before);
    }
}
