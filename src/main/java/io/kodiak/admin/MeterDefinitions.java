package io.kodiak.admin;

import io.micrometer.core.instrument.Timer;

import java.time.Duration;

/** Shared shape of Kodiak's latency meters, so request and upstream latency read alike. */
final class MeterDefinitions {
    private MeterDefinitions() {
    }

    /**
     * A timer exposing p50/p95/p99 over a sliding window (a Prometheus summary): a single proxy
     * is what an operator looks at here, and a summary costs one series per quantile instead of
     * a histogram's dozens of buckets per route.
     */
    static Timer.Builder latency(String name, String description) {
        return Timer.builder(name)
                .description(description)
                .publishPercentiles(0.5, 0.95, 0.99)
                .distributionStatisticExpiry(Duration.ofMinutes(1))
                .distributionStatisticBufferLength(3);
    }
}
