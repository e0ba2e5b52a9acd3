package io.kodiak.admin;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;

class TimerFeedTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final Timer timer = Timer.builder("t").register(registry);
    private final TimerFeed feed = new TimerFeed();

    @Test
    void samplesReachTheTimerOnlyWhenDrained() {
        feed.record(timer, 2_000_000);
        feed.record(timer, 3_000_000);
        assertEquals(0, timer.count(), "still in the recording thread's ring");

        feed.drain();

        assertEquals(2, timer.count());
        assertEquals(5, timer.totalTime(TimeUnit.MILLISECONDS), 0.001);
        feed.drain();
        assertEquals(2, timer.count(), "a sample is fed once");
    }

    @Test
    void aFullRingRecordsDirectlyAndLosesNothing() {
        int samples = TimerFeed.CAPACITY + 100;
        for (int i = 0; i < samples; i++) {
            feed.record(timer, 1_000);
        }
        assertEquals(100, timer.count(), "the samples past a full ring went straight to the timer");

        feed.drain();

        assertEquals(samples, timer.count());
    }

    /** Several producers with a drainer running alongside, as selector threads and the metrics tick do. */
    @Test
    void everySampleOfEveryThreadIsCountedOnceWhileDrainsRunConcurrently() throws Exception {
        int threads = 4;
        int perThread = 50_000;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> producers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread producer = new Thread(() -> {
                awaitQuietly(start);
                for (int i = 0; i < perThread; i++) {
                    feed.record(timer, 1 + i % 1000);
                }
            });
            producers.add(producer);
            producer.start();
        }
        AtomicBoolean producing = new AtomicBoolean(true);
        Thread drainer = new Thread(() -> {
            while (producing.get()) {
                feed.drain();
            }
        });
        drainer.start();
        start.countDown();
        for (Thread producer : producers) {
            producer.join();
        }
        producing.set(false);
        drainer.join();

        feed.drain();

        assertEquals((long) threads * perThread, timer.count());
        long expectedNanos = (long) threads * (perThread / 1000) * (1000L * 1001 / 2);
        assertEquals(expectedNanos, timer.totalTime(TimeUnit.NANOSECONDS), 0.5);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
