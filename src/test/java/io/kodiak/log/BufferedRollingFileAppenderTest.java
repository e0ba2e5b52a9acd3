package io.kodiak.log;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.rolling.TimeBasedRollingPolicy;
import ch.qos.logback.core.util.Duration;
import ch.qos.logback.core.util.FileSize;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

import static io.kodiak.support.Await.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The access log's appender: lines buffered, written when the buffer fills, after the interval, and at stop. */
class BufferedRollingFileAppenderTest {
    @TempDir
    Path dir;
    private final LoggerContext context = new LoggerContext();
    private BufferedRollingFileAppender<ILoggingEvent> appender;
    private ch.qos.logback.classic.Logger logger;

    BufferedRollingFileAppenderTest() {
        context.setMDCAdapter(new ch.qos.logback.classic.util.LogbackMDCAdapter());
    }

    private BufferedRollingFileAppender<ILoggingEvent> start(String interval, String bufferSize) {
        return start(new BufferedRollingFileAppender<>(), interval, bufferSize);
    }

    private BufferedRollingFileAppender<ILoggingEvent> start(BufferedRollingFileAppender<ILoggingEvent> created,
                                                             String interval, String bufferSize) {
        appender = created;
        appender.setContext(context);
        appender.setName("ACCESS");
        appender.setFile(dir.resolve("access.log").toString());
        appender.setFlushInterval(Duration.valueOf(interval));
        appender.setBufferSize(FileSize.valueOf(bufferSize));
        TimeBasedRollingPolicy<ILoggingEvent> rolling = new TimeBasedRollingPolicy<>();
        rolling.setContext(context);
        rolling.setParent(appender);
        rolling.setFileNamePattern(dir.resolve("access.%d{yyyy-MM-dd}.log").toString());
        rolling.start();
        appender.setRollingPolicy(rolling);
        return started();
    }

    /** The appender, set up so far, with its encoder, started, and the access logger writing to it. */
    private BufferedRollingFileAppender<ILoggingEvent> started() {
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern("%msg%n");
        encoder.start();
        appender.setEncoder(encoder);
        appender.start();
        assertTrue(appender.isStarted(), () -> context.getStatusManager().getCopyOfStatusList().toString());
        logger = context.getLogger("kodiak.access");
        logger.setAdditive(false);
        logger.addAppender(appender);
        return appender;
    }

    /**
     * A write that fails (/dev/full answers every write with ENOSPC, as a full disk does) is said
     * in the application log, once for the failure, not once per line dropped.
     */
    @Test
    void aFailedWriteIsSaidOnceInTheApplicationLog() throws InterruptedException {
        ch.qos.logback.classic.Logger own =
                (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(BufferedRollingFileAppender.class);
        ch.qos.logback.core.read.ListAppender<ILoggingEvent> said = new ch.qos.logback.core.read.ListAppender<>();
        said.start();
        own.addAppender(said);
        try {
            appender = new BufferedRollingFileAppender<>();
            appender.setContext(context);
            appender.setName("ACCESS");
            appender.setFile("/dev/full");
            appender.setBufferSize(FileSize.valueOf("1 KB"));
            // Rolled by size only: a time-based policy takes /dev/full's old date for a period past
            // and copies the device, endless zeros, into an archive.
            ch.qos.logback.core.rolling.FixedWindowRollingPolicy rolling = new ch.qos.logback.core.rolling.FixedWindowRollingPolicy();
            rolling.setContext(context);
            rolling.setParent(appender);
            rolling.setFileNamePattern(dir.resolve("access.%i.log").toString());
            rolling.start();
            ch.qos.logback.core.rolling.SizeBasedTriggeringPolicy<ILoggingEvent> never = new ch.qos.logback.core.rolling.SizeBasedTriggeringPolicy<>();
            never.setContext(context);
            never.setMaxFileSize(FileSize.valueOf("1 GB"));
            never.start();
            appender.setRollingPolicy(rolling);
            appender.setTriggeringPolicy(never);
            started();
            for (int round = 0; round < 6; round++) {
                for (int i = 0; i < 50; i++) {
                    log("line " + i + " " + "x".repeat(200));
                }
                appender.flush();
                // Past logback's back-off (20 ms, then 80), so that it reopens the file and fails again.
                Thread.sleep(40);
            }
            List<ILoggingEvent> warnings = said.list.stream()
                    .filter(e -> e.getLevel() == ch.qos.logback.classic.Level.WARN).toList();
            assertEquals(1, warnings.size(), () -> said.list.toString());
            assertEquals(1, said.list.size(), () -> "no \"works again\" while every write fails: " + said.list);
            assertTrue(warnings.get(0).getFormattedMessage().contains("/dev/full"), warnings.get(0).getFormattedMessage());
            assertTrue(warnings.get(0).getFormattedMessage().contains("dropped"), warnings.get(0).getFormattedMessage());
        } finally {
            own.detachAppender(said);
        }
    }

    @AfterEach
    void stop() {
        if (appender != null) {
            appender.stop();
        }
    }

    private void log(String line) {
        logger.info(line);
    }

    private List<String> lines() {
        try {
            return Files.readAllLines(dir.resolve("access.log"));
        } catch (IOException e) {
            return List.of();
        }
    }

    @Test
    void aLineWaitsInTheBufferUntilAFlushAndStopWritesTheRest() {
        start("1 hour", "64KB");
        log("first");
        assertEquals(List.of(), lines(), "one line is a copy into memory, not a write to the file");
        appender.flush();
        assertEquals(List.of("first"), lines());
        log("second");
        appender.stop();
        assertEquals(List.of("first", "second"), lines(), "stop writes what the buffer held");
    }

    /** The periodic flush as the appender asked for it, run by the test: its ticks are steps of the test. */
    private static final class ManualTimer implements BufferedRollingFileAppender.FlushTimer {
        long millis = -1;
        Runnable flush;
        boolean stopped;

        @Override
        public Runnable every(String threadName, long everyMillis, Runnable task) {
            millis = everyMillis;
            flush = task;
            return () -> stopped = true;
        }
    }

    @Test
    void theIntervalBoundsHowLateALineReachesTheFile() {
        ManualTimer timer = new ManualTimer();
        start(new BufferedRollingFileAppender<>(timer), "50 milliseconds", "64KB");
        // "At most flushInterval late": a flush is due every interval, the first one interval after the start...
        assertEquals(50, timer.millis, "the flush runs every flushInterval");
        log("soon");
        assertEquals(List.of(), lines(), "before the interval's tick the line is only in the buffer");
        // ...and each such tick writes every line the buffer holds.
        timer.flush.run();
        assertEquals(List.of("soon"), lines(), "the interval's tick writes it");
        log("later");
        assertEquals(List.of("soon"), lines());
        timer.flush.run();
        assertEquals(List.of("soon", "later"), lines(), "and the next tick the next");
        appender.stop();
        assertTrue(timer.stopped, "stop ends the periodic flush");
    }

    @Test
    void theFlushThreadRunsTheInterval() throws InterruptedException {
        start("50 milliseconds", "64KB");
        log("soon");
        // Only that the real timer ticks at all (no bound on when: the test above checks what a tick does).
        await(() -> lines().equals(List.of("soon")), "the periodic flush");
    }

    @Test
    void aFullBufferGoesToTheFileWithoutWaitingForTheInterval() {
        start("1 hour", "1KB");
        for (int i = 0; i < 100; i++) {
            log("line " + i + " " + "x".repeat(40));
        }
        assertFalse(lines().isEmpty(), "4 KB of lines through a 1 KB buffer");
    }

    @Test
    void linesFromManyThreadsStayWholeWhileTheFlusherRuns() throws Exception {
        start("1 milliseconds", "4KB");
        int threads = 4;
        int each = 2_000;
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> writers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            Thread w = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < each; i++) {
                    log("t" + id + " n" + i + " " + "y".repeat(i % 97));
                }
            });
            w.start();
            writers.add(w);
        }
        go.countDown();
        for (Thread w : writers) {
            w.join();
        }
        appender.stop();
        List<String> lines = lines();
        assertEquals(threads * each, lines.size());
        Set<String> seen = new HashSet<>();
        for (String line : lines) {
            assertTrue(line.matches("t\\d n\\d+ y*"), "a whole line: " + line);
            assertTrue(seen.add(line), "written once: " + line);
        }
    }

    @Test
    void anIntervalThatIsNotPositiveIsRefused() {
        appender = new BufferedRollingFileAppender<>();
        appender.setContext(context);
        appender.setName("ACCESS");
        appender.setFlushInterval(Duration.buildByMilliseconds(0));
        appender.start();
        assertFalse(appender.isStarted());
        assertTrue(context.getStatusManager().getCopyOfStatusList().stream()
                .anyMatch(s -> s.getMessage().contains("flushInterval must be positive")));
    }
}
