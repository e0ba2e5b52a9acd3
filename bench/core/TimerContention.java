import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * What one latency sample costs Kodiak's metrics, recorded straight into a Micrometer timer shaped like
 * Kodiak's (p50/p95/p99 over a 1-minute window, 3 buffers) from one thread and from two at once, as two
 * selector threads would. The gap is why samples go through TimerFeed. Bounded, about 20 s:
 *
 *   mvn -q -DskipTests package && java -cp 'target/lib/*' bench/core/TimerContention.java
 */
public class TimerContention {
    private static final long SAMPLES = 2_000_000;

    public static void main(String[] args) throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Timer timer = Timer.builder("kodiak.like").publishPercentiles(0.5, 0.95, 0.99)
                .distributionStatisticExpiry(Duration.ofMinutes(1)).distributionStatisticBufferLength(3)
                .register(registry);
        for (int round = 1; round <= 3; round++) {
            System.out.printf("round %d: one thread %.0f ns per sample, two threads %.0f ns per sample%n",
                    round, nanosPerSample(timer, 1), nanosPerSample(timer, 2));
        }
    }

    /** Wall time per sample of each thread, with {@code threads} threads recording SAMPLES each at once. */
    private static double nanosPerSample(Timer timer, int threads) throws InterruptedException {
        Thread[] recorders = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            recorders[t] = new Thread(() -> {
                long v = Thread.currentThread().getId();
                for (long i = 0; i < SAMPLES; i++) {
                    v = v * 6364136223846793005L + 1442695040888963407L;
                    timer.record(50_000 + ((v >>> 40) & 0xFFFFF), TimeUnit.NANOSECONDS);
                }
            });
        }
        long start = System.nanoTime();
        for (Thread recorder : recorders) {
            recorder.start();
        }
        for (Thread recorder : recorders) {
            recorder.join();
        }
        return (System.nanoTime() - start) / (double) SAMPLES;
    }
}
