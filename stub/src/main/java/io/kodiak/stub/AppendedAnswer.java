package io.kodiak.stub;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;

/** Builds the stub's answer: {@code <body>-appended by servlet <yyyy-MM-dd - HH:mm:ss>} in local time. */
public final class AppendedAnswer {
    public static final String MARK = "-appended by servlet ";
    private static final DateTimeFormatter STAMP_FORMAT = DateTimeFormatter.ofPattern("yyyy-MM-dd - HH:mm:ss");

    private final Clock clock;
    // Thousands of answers share each second; formatting the stamp once per second keeps it off the profile.
    private volatile Stamp lastStamp = new Stamp(Long.MIN_VALUE, "");

    public AppendedAnswer(Clock clock) {
        this.clock = clock;
    }

    public static AppendedAnswer localTime() {
        return new AppendedAnswer(Clock.systemDefaultZone());
    }

    public String text(String body) {
        return body + MARK + stamp();
    }

    public byte[] utf8(String body) {
        return text(body).getBytes(StandardCharsets.UTF_8);
    }

    String stamp() {
        Instant now = clock.instant();
        long second = now.getEpochSecond();
        Stamp last = lastStamp;
        if (last.epochSecond == second) {
            return last.text;
        }
        String text = LocalDateTime.ofInstant(now, clock.getZone()).format(STAMP_FORMAT);
        lastStamp = new Stamp(second, text);
        return text;
    }

    private record Stamp(long epochSecond, String text) {
    }
}
