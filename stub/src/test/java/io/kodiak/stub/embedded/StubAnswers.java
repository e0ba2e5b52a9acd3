package io.kodiak.stub.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The answer contract as the tests check it. */
final class StubAnswers {
    static final Pattern ANSWER = Pattern.compile(
            "(?s)(.*)-appended by servlet (\\d{4}-\\d{2}-\\d{2} - \\d{2}:\\d{2}:\\d{2})");
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd - HH:mm:ss");

    private StubAnswers() {
    }

    /** Asserts {@code answer} is exactly {@code body} + the mark + a local-time stamp close to now. */
    static void assertAnswers(String body, String answer) {
        Matcher matcher = ANSWER.matcher(answer);
        assertTrue(matcher.matches(), () -> "not a stub answer: " + answer);
        assertEquals(body, matcher.group(1));
        LocalDateTime stamp = LocalDateTime.parse(matcher.group(2), STAMP);
        Duration off = Duration.between(stamp, LocalDateTime.now()).abs();
        assertTrue(off.compareTo(Duration.ofMinutes(1)) < 0, () -> "stamp " + stamp + " is not local now");
    }

    static void assertPlainUtf8(String contentType) {
        String normalised = contentType.replace(" ", "").toLowerCase(java.util.Locale.ROOT);
        assertEquals("text/plain;charset=utf-8", normalised);
    }
}
