package io.kodiak.log;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One line per exchange on the "kodiak.access" logger, routed to its own file by logback.xml:
 * client, request line, status, bytes in/out, upstream, upstream time and total time (ms), and the
 * client connection's TLS protocol ({@code -} for plain HTTP).
 * Status 499 means the client went away before the response was complete (nginx's convention).
 */
public final class AccessLog {
    private static final Logger LOG = LoggerFactory.getLogger("kodiak.access");

    private AccessLog() {
    }

    public static boolean enabled() {
        return LOG.isInfoEnabled();
    }

    public static void record(String client, String method, String uri, String query, int status,
                              long bytesIn, long bytesOut, String upstream, long upstreamNanos, long totalNanos, String tlsProtocol) {
        StringBuilder line = new StringBuilder(160)
                .append(client).append(" \"").append(method).append(' ').append(uri);
        if (query != null) {
            line.append('?').append(query);
        }
        line.append("\" ").append(status).append(' ').append(bytesIn).append(' ').append(bytesOut)
                .append(' ').append(upstream == null ? "-" : upstream).append(' ');
        appendMillis(line, upstreamNanos).append(' ');
        appendMillis(line, totalNanos).append(' ').append(tlsProtocol == null ? "-" : tlsProtocol);
        LOG.info(line.toString());
    }

    private static StringBuilder appendMillis(StringBuilder line, long nanos) {
        if (nanos < 0) {
            return line.append('-');
        }
        long tenthsOfMs = nanos / 100_000;
        return line.append(tenthsOfMs / 10).append('.').append(tenthsOfMs % 10);
    }
}
