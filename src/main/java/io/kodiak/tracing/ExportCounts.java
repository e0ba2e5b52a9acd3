package io.kodiak.tracing;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.metrics.InstrumentType;
import io.opentelemetry.sdk.metrics.data.AggregationTemporality;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.export.CollectionRegistration;
import io.opentelemetry.sdk.metrics.export.MetricReader;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;

import java.util.Collection;
import java.util.concurrent.atomic.LongAdder;

/**
 * What became of the ended spans, for /metrics: exported and failed are counted around the
 * exporter (on the processor's thread); dropped is the processor's own count
 * ({@code otel.sdk.processor.span.processed} with an {@code error.type}: queue_full, or
 * already_shutdown), which it reports only to a meter provider, read here when asked.
 */
final class ExportCounts {
    private static final String PROCESSED = "otel.sdk.processor.span.processed";
    private static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

    private final LongAdder exported = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private volatile CollectionRegistration registration = CollectionRegistration.noop();

    long exported() {
        return exported.sum();
    }

    long failed() {
        return failed.sum();
    }

    long dropped() {
        long dropped = 0;
        for (MetricData metric : registration.collectAllMetrics()) {
            if (!metric.getName().equals(PROCESSED)) {
                continue;
            }
            for (LongPointData point : metric.getLongSumData().getPoints()) {
                if (point.getAttributes().get(ERROR_TYPE) != null) {
                    dropped += point.getValue();
                }
            }
        }
        return dropped;
    }

    /** A reader that collects only when {@link #dropped} asks, cumulative. */
    MetricReader reader() {
        return new MetricReader() {
            @Override
            public void register(CollectionRegistration collection) {
                registration = collection;
            }

            @Override
            public AggregationTemporality getAggregationTemporality(InstrumentType type) {
                return AggregationTemporality.CUMULATIVE;
            }

            @Override
            public CompletableResultCode forceFlush() {
                return CompletableResultCode.ofSuccess();
            }

            @Override
            public CompletableResultCode shutdown() {
                return CompletableResultCode.ofSuccess();
            }
        };
    }

    /** {@code exporter}, its outcomes counted. */
    SpanExporter counting(SpanExporter exporter) {
        return new SpanExporter() {
            @Override
            public CompletableResultCode export(Collection<SpanData> spans) {
                int count = spans.size();
                CompletableResultCode result = exporter.export(spans);
                result.whenComplete(() -> (result.isSuccess() ? exported : failed).add(count));
                return result;
            }

            @Override
            public CompletableResultCode flush() {
                return exporter.flush();
            }

            @Override
            public CompletableResultCode shutdown() {
                return exporter.shutdown();
            }
        };
    }
}
