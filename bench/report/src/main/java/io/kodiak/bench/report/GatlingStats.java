package io.kodiak.bench.report;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.file.Path;

/**
 * One Gatling run's figures as its own report has them: {@code js/global_stats.json} (Gatling 3.12.0, the
 * last release that writes it), over all requests. Every figure has a total, an OK and a KO part; the
 * bench reports the totals, as Gatling's report does. A figure missing from the file is refused rather
 * than read as zero, so a changed format cannot pass for a run without requests.
 */
record GatlingStats(Figure numberOfRequests, Figure minResponseTime, Figure maxResponseTime, Figure meanResponseTime,
                    Figure percentiles1, Figure percentiles2, Figure percentiles3, Figure percentiles4,
                    Figure meanNumberOfRequestsPerSecond) {

    private static final ObjectMapper JSON = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_CREATOR_PROPERTIES)
            .build();

    /** One figure: over all requests, the answered ones, the failed ones. */
    record Figure(double total, double ok, double ko) {
    }

    static GatlingStats read(Path globalStatsJson) throws IOException {
        try {
            return JSON.readValue(globalStatsJson.toFile(), GatlingStats.class);
        } catch (com.fasterxml.jackson.databind.JsonMappingException e) {
            throw new IOException(globalStatsJson + " is not a Gatling 3.12 global_stats.json: " + e.getOriginalMessage(), e);
        }
    }

    // Gatling's percentiles1..4 are its configured gatling.charting.indicators.percentile1..4, which the
    // bench leaves at their defaults (src/test/resources/gatling.conf): 50, 75, 95 and 99.

    double p50() {
        return percentiles1.total;
    }

    double p75() {
        return percentiles2.total;
    }

    double p95() {
        return percentiles3.total;
    }

    double p99() {
        return percentiles4.total;
    }
}
