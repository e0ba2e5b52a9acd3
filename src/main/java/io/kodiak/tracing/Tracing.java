package io.kodiak.tracing;

import io.kodiak.config.ProxyConfig;
import io.kodiak.http.RequestHead;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.common.InternalTelemetryVersion;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * proxy.tracing as it runs: the OpenTelemetry SDK's tracer provider with a parent-based ratio
 * sampler, a {@link BatchSpanProcessor} (a bounded queue: a span that finds it full is dropped,
 * never waited for) and the OTLP/HTTP exporter on the JDK's HttpClient. An exchange's span starts
 * and ends on its loop; the processor's own thread sends. Built once at start (restart only), and
 * only when tracing is on: off, there is no instance at all, and the forwarding path's one check
 * is whether there is.
 */
public final class Tracing {
    private static final Logger LOG = LoggerFactory.getLogger(Tracing.class);
    /** Spans per export request: the SDK's default, or the whole queue when that is smaller. */
    private static final int BATCH = 512;
    private static final Duration SCHEDULE_DELAY = Duration.ofSeconds(5);
    private static final Duration EXPORT_TIMEOUT = Duration.ofSeconds(10);
    /** How long a stop waits for the last spans to leave: a missing collector must not hold it up. */
    static final long SHUTDOWN_MILLIS = 5_000;

    private static final AttributeKey<String> METHOD = AttributeKey.stringKey("http.request.method");
    private static final AttributeKey<String> METHOD_ORIGINAL = AttributeKey.stringKey("http.request.method_original");
    private static final AttributeKey<String> ROUTE = AttributeKey.stringKey("http.route");
    private static final AttributeKey<String> PATH = AttributeKey.stringKey("url.path");
    private static final AttributeKey<String> QUERY = AttributeKey.stringKey("url.query");
    private static final AttributeKey<String> SCHEME = AttributeKey.stringKey("url.scheme");
    private static final AttributeKey<String> PROTOCOL_VERSION = AttributeKey.stringKey("network.protocol.version");
    private static final AttributeKey<String> CLIENT_ADDRESS = AttributeKey.stringKey("client.address");

    private final SdkTracerProvider provider;
    private final Tracer tracer;
    private final ExportCounts counts;
    private final SdkMeterProvider meters;

    private Tracing(SdkTracerProvider provider, ExportCounts counts, SdkMeterProvider meters) {
        this.provider = provider;
        this.tracer = provider.get("io.kodiak");
        this.counts = counts;
        this.meters = meters;
    }

    /** The running tracing for {@code settings}; null when tracing is off. */
    public static Tracing start(ProxyConfig.Tracing settings) {
        if (!settings.enabled()) {
            return null;
        }
        ExportCounts counts = new ExportCounts();
        // The processor counts what it drops only through a meter provider: one of the SDK's,
        // read by Kodiak's /metrics on demand and never exported anywhere.
        SdkMeterProvider meters = SdkMeterProvider.builder().registerMetricReader(counts.reader()).build();
        OtlpHttpSpanExporter otlp = OtlpHttpSpanExporter.builder()
                .setEndpoint(settings.endpoint().toString())
                .setTimeout(EXPORT_TIMEOUT)
                .build();
        BatchSpanProcessor processor = BatchSpanProcessor.builder(counts.counting(otlp))
                .setMaxQueueSize(settings.maxQueuedSpans())
                .setMaxExportBatchSize(Math.min(BATCH, settings.maxQueuedSpans()))
                .setScheduleDelay(SCHEDULE_DELAY)
                .setExporterTimeout(EXPORT_TIMEOUT)
                .setMeterProvider(meters)
                .setInternalTelemetryVersion(InternalTelemetryVersion.LATEST)
                .build();
        SdkTracerProvider provider = SdkTracerProvider.builder()
                .setResource(Resource.getDefault().merge(Resource.create(Attributes.of(
                        AttributeKey.stringKey("service.name"), settings.serviceName()))))
                .setSampler(Sampler.parentBased(Sampler.traceIdRatioBased(settings.sampler())))
                .addSpanProcessor(processor)
                .build();
        LOG.info("tracing on: {} of new traces sampled, spans to {} (at most {} queued)", settings.sampler(),
                settings.endpoint(), settings.maxQueuedSpans());
        return new Tracing(provider, counts, meters);
    }

    /**
     * The span of an exchange admitted on {@code route} for {@code head}: a child of the client's
     * valid traceparent, else the root of a new trace. {@code protocol}: as the access log names
     * it (HTTP/1.1, HTTP/2.0).
     */
    public ExchangeSpan begin(RequestHead head, String route, String protocol, boolean secure, String clientAddress) {
        SpanContext parent = IncomingContext.of(head);
        String method = head.methodName();
        boolean known = head.method() != io.kodiak.http.RequestMethod.OTHER;
        SpanBuilder builder = tracer.spanBuilder((known ? method : "HTTP") + " " + route)
                .setSpanKind(SpanKind.SERVER)
                .setParent(parent == null ? Context.root() : Context.root().with(Span.wrap(parent)));
        // Set on the builder: the SDK drops them unread when the span is not sampled.
        builder.setAttribute(METHOD, known ? method : "_OTHER")
                .setAttribute(ROUTE, route)
                .setAttribute(PATH, head.path())
                .setAttribute(SCHEME, secure ? "https" : "http")
                .setAttribute(PROTOCOL_VERSION, version(protocol))
                .setAttribute(CLIENT_ADDRESS, clientAddress);
        if (!known) {
            builder.setAttribute(METHOD_ORIGINAL, method);
        }
        if (head.query() != null) {
            builder.setAttribute(QUERY, head.query());
        }
        return new ExchangeSpan(builder.startSpan(), parent != null);
    }

    /** "HTTP/1.1" as semantic conventions write it: "1.1"; "HTTP/2.0": "2". */
    private static String version(String protocol) {
        if (protocol == null || !protocol.startsWith("HTTP/")) {
            return protocol;
        }
        String version = protocol.substring(5);
        return version.equals("2.0") ? "2" : version;
    }

    /** Spans dropped so far: the queue was full (the collector slow or down), or they ended after the stop. */
    public long droppedSpans() {
        return counts.dropped();
    }

    /** Spans the collector took. */
    public long exportedSpans() {
        return counts.exported();
    }

    /** Spans whose export failed (the collector down, refusing, or slower than the export timeout). */
    public long failedSpans() {
        return counts.failed();
    }

    /** Sends what is queued and stops, waiting {@link #SHUTDOWN_MILLIS} at most. */
    public void shutdown() {
        provider.shutdown().join(SHUTDOWN_MILLIS, TimeUnit.MILLISECONDS);
        meters.shutdown().join(SHUTDOWN_MILLIS, TimeUnit.MILLISECONDS);
    }
}
