package io.kodiak.log;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;

/**
 * The access log's encoder writes what {@code %accessTime%msg%n} writes: the local time with
 * milliseconds and a space before a text line, nothing before a JSON line, the message as UTF-8,
 * a newline; the time made once per millisecond is the right one for each millisecond.
 */
class AccessLineEncoderTest {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS ")
            .withZone(ZoneId.systemDefault());
    private final LoggerContext context = new LoggerContext();
    private final AccessLineEncoder encoder = new AccessLineEncoder();

    private LoggingEvent event(long millis, String message, boolean json) {
        LoggingEvent event = new LoggingEvent("test", context.getLogger("kodiak.access"), Level.INFO, message, null, null);
        event.setTimeStamp(millis);
        if (json) {
            event.addMarker(AccessLog.JSON);
        }
        return event;
    }

    private static String expected(long millis, String message) {
        return TIME.format(Instant.ofEpochMilli(millis)) + message + "\n";
    }

    @Test
    void aTextLineIsItsTimeItsMessageAndANewline() {
        long millis = 1_795_000_000_123L;
        String line = "127.0.0.1 \"GET /a?b\" 200 0 512 127.0.0.1:8081 2.9 6.0 -";
        assertEquals(expected(millis, line), new String(encoder.encode(event(millis, line, false)), StandardCharsets.US_ASCII));
        // The same millisecond again, then the next ones: the cached time follows the clock.
        assertEquals(expected(millis, "x"), new String(encoder.encode(event(millis, "x", false)), StandardCharsets.US_ASCII));
        assertEquals(expected(millis + 1, "y"), new String(encoder.encode(event(millis + 1, "y", false)), StandardCharsets.US_ASCII));
        assertEquals(expected(millis + 1_000, "z"), new String(encoder.encode(event(millis + 1_000, "z", false)), StandardCharsets.US_ASCII));
    }

    @Test
    void aJsonLineHasNoTimeBeforeItAndKeepsItsCharactersAsUtf8() {
        String json = "{\"time\":\"2026-11-29T13:15:30.520Z\",\"uri\":\"/caf\u00e9\"}";
        byte[] line = encoder.encode(event(1_795_000_000_123L, json, true));
        assertArrayEquals((json + "\n").getBytes(StandardCharsets.UTF_8), line);
    }

    @Test
    void theConverterGivesTheSameTimeAndEachLineItsOwnArray() {
        long millis = 1_795_000_000_777L;
        LineTime converter = new LineTime();
        assertEquals(TIME.format(Instant.ofEpochMilli(millis)), converter.convert(event(millis, "m", false)));
        assertEquals("", converter.convert(event(millis, "m", true)));
        assertNotSame(encoder.encode(event(millis, "m", false)), encoder.encode(event(millis, "m", false)));
    }
}
