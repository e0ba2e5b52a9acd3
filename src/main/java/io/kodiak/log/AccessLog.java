package io.kodiak.log;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;
import org.slf4j.MarkerFactory;

/**
 * One line per exchange on the "kodiak.access" logger, routed to its own file by logback.xml, in
 * the format proxy.access-log.format sets ({@link AccessLogFormat}; by default client, request
 * line, status, bytes in/out, upstream, upstream time and total time (ms), and the client
 * connection's TLS protocol, {@code -} for plain HTTP). Status 499 means the client went away
 * before the response was complete (nginx's convention).
 */
public final class AccessLog {
    private static final Logger LOG = LoggerFactory.getLogger("kodiak.access");
    /** A line that is a whole JSON object: the file's pattern puts no time before it ({@link LineTime}). */
    static final Marker JSON = MarkerFactory.getMarker("KODIAK_ACCESS_JSON");

    private AccessLog() {
    }

    public static boolean enabled() {
        return LOG.isInfoEnabled();
    }

    public static void record(AccessLogFormat format, AccessLogEntry entry) {
        if (format.isJson()) {
            LOG.info(JSON, format.line(entry));
        } else {
            LOG.info(format.line(entry));
        }
    }
}
