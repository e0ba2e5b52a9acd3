package io.kodiak.stub;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;

class AppendedAnswerTest {
    // 2015-03-04T12:34:56Z is 13:34:56 in Paris: the stamp must be local time, not UTC.
    private final AppendedAnswer answers = new AppendedAnswer(
            Clock.fixed(Instant.parse("2015-03-04T12:34:56.789Z"), ZoneId.of("Europe/Paris")));

    @Test
    void appendsTheMarkAndTheLocalTime() {
        assertEquals("test1-appended by servlet 2015-03-04 - 13:34:56", answers.text("test1"));
    }

    @Test
    void anEmptyBodyGivesTheMarkAlone() {
        assertEquals("-appended by servlet 2015-03-04 - 13:34:56", answers.text(""));
    }

    @Test
    void encodesAsUtf8() {
        assertArrayEquals("é🐻-appended by servlet 2015-03-04 - 13:34:56".getBytes(StandardCharsets.UTF_8),
                answers.utf8("é🐻"));
    }

    @Test
    void theStampFollowsTheClockAcrossSeconds() {
        MutableClock clock = new MutableClock(Instant.parse("2015-12-31T23:59:59Z"));
        AppendedAnswer ticking = new AppendedAnswer(clock);
        assertEquals("2015-12-31 - 23:59:59", ticking.stamp());
        clock.now = Instant.parse("2016-01-01T00:00:00Z");
        assertEquals("2016-01-01 - 00:00:00", ticking.stamp());
    }

    private static final class MutableClock extends Clock {
        Instant now;

        MutableClock(Instant now) {
            this.now = now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneId.of("UTC");
        }

        @Override
        public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
