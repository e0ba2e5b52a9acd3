package io.kodiak.tracing;

import io.opentelemetry.api.trace.SpanContext;
import org.junit.jupiter.api.Test;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** traceparent as W3C Trace Context reads it: what is a parent, and what starts a new trace. */
class IncomingContextTest {
    private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String PARENT = "00f067aa0ba902b7";

    private static SpanContext parse(String value) {
        // Inside a larger array, as a field's value lies in its head.
        byte[] head = ("x: " + value + "\r\n").getBytes(US_ASCII);
        return IncomingContext.parse(head, 3, 3 + value.length());
    }

    @Test
    void aVersion00ValueIsItsTraceParentAndFlags() {
        SpanContext sampled = parse("00-" + TRACE + "-" + PARENT + "-01");
        assertEquals(TRACE, sampled.getTraceId());
        assertEquals(PARENT, sampled.getSpanId());
        assertTrue(sampled.isRemote());
        assertTrue(sampled.isSampled());
        assertFalse(parse("00-" + TRACE + "-" + PARENT + "-00").isSampled());
        assertFalse(parse("00-" + TRACE + "-" + PARENT + "-02").isSampled(), "02 is random, not sampled");
    }

    @Test
    void aLaterVersionKeepsItsVersion00PartsAndOnlyTheSampledFlag() {
        SpanContext later = parse("cc-" + TRACE + "-" + PARENT + "-ff-what-not");
        assertEquals(TRACE, later.getTraceId());
        assertEquals(1, later.getTraceFlags().asByte());
        assertEquals(TRACE, parse("cc-" + TRACE + "-" + PARENT + "-01").getTraceId());
        assertNull(parse("cc-" + TRACE + "-" + PARENT + "-01x"), "more must follow a dash");
    }

    @Test
    void anythingElseIsNoParent() {
        String[] invalid = {
                "",
                "00-" + TRACE + "-" + PARENT + "-0",
                "00-" + TRACE + "-" + PARENT + "-01-",
                "00-" + TRACE.toUpperCase() + "-" + PARENT + "-01",
                "00-" + TRACE + "-" + PARENT.toUpperCase() + "-01",
                "00-" + TRACE + "-" + PARENT + "-0A",
                "0A-" + TRACE + "-" + PARENT + "-01",
                "ff-" + TRACE + "-" + PARENT + "-01",
                "00-" + "0".repeat(32) + "-" + PARENT + "-01",
                "00-" + TRACE + "-" + "0".repeat(16) + "-01",
                "00_" + TRACE + "-" + PARENT + "-01",
                "00-" + TRACE + "_" + PARENT + "-01",
                "00-" + TRACE + "-" + PARENT + "_01",
                "00-" + TRACE.substring(1) + "g-" + PARENT + "-01",
        };
        for (String value : invalid) {
            assertNull(parse(value), value);
        }
    }
}
