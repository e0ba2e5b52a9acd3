package io.kodiak.log;

import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

/**
 * {@code %accessTime} in logback.xml: the time an access-log line was written and a space before a
 * text line, nothing before a JSON one, which carries its own "time" and must stay one JSON object
 * per line for the tools that read it. {@link AccessLineEncoder} writes the same prefix without a
 * pattern layout.
 *
 * <p>The text is made once per millisecond and thread: formatting it (an {@code Instant}, a zoned
 * and a local date-time, the formatter's context and a {@code BigDecimal} for the fraction) cost
 * about 300 bytes per line, and at thousands of lines a second most lines share their millisecond.
 */
public final class LineTime extends ClassicConverter {
    private static final DateTimeFormatter FORMAT = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS ")
            .withZone(ZoneId.systemDefault());
    private static final ThreadLocal<Last> LAST = ThreadLocal.withInitial(Last::new);

    /** The thread's last prefix and its millisecond. */
    private static final class Last {
        long millis = Long.MIN_VALUE;
        String text;
        byte[] bytes;

        void at(long now) {
            if (now != millis) {
                millis = now;
                text = FORMAT.format(Instant.ofEpochMilli(now));
                bytes = text.getBytes(StandardCharsets.US_ASCII);
            }
        }
    }

    @Override
    public String convert(ILoggingEvent event) {
        if (isJson(event)) {
            return "";
        }
        Last last = LAST.get();
        last.at(event.getTimeStamp());
        return last.text;
    }

    /** The prefix of a line written at {@code millis}, as bytes (not to be changed: shared until the next millisecond). */
    static byte[] bytes(long millis) {
        Last last = LAST.get();
        last.at(millis);
        return last.bytes;
    }

    static boolean isJson(ILoggingEvent event) {
        return event.getMarkerList() != null && event.getMarkerList().contains(AccessLog.JSON);
    }
}
