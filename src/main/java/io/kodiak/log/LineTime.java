package io.kodiak.log;

import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

/**
 * {@code %accessTime} in logback.xml: the time an access-log line was written and a space before a
 * text line, nothing before a JSON one, which carries its own "time" and must stay one JSON object
 * per line for the tools that read it.
 */
public final class LineTime extends ClassicConverter {
    private static final DateTimeFormatter FORMAT = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS ")
            .withZone(ZoneId.systemDefault());

    @Override
    public String convert(ILoggingEvent event) {
        if (event.getMarkerList() != null && event.getMarkerList().contains(AccessLog.JSON)) {
            return "";
        }
        return FORMAT.format(Instant.ofEpochMilli(event.getTimeStamp()));
    }
}
