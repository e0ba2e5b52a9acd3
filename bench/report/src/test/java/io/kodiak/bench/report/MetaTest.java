package io.kodiak.bench.report;

import org.junit.jupiter.api.Test;

import java.time.OffsetDateTime;
import java.time.ZoneOffset;

import static org.junit.jupiter.api.Assertions.assertEquals;

class MetaTest {
    @Test
    void aTimestampAtAWholeMinuteKeepsItsSeconds() {
        // OffsetDateTime.toString() would give "2026-11-24T20:35Z", which the schema's date-time refuses.
        assertEquals("2026-11-24T20:35:00Z", Meta.timestamp(OffsetDateTime.of(2026, 11, 24, 20, 35, 0, 0, ZoneOffset.UTC)));
        assertEquals("2026-11-24T20:35:07Z", Meta.timestamp(OffsetDateTime.of(2026, 11, 24, 20, 35, 7, 999_000_000, ZoneOffset.UTC)));
    }
}
