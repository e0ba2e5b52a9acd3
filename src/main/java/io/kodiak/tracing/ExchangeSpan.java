package io.kodiak.tracing;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.StatusCode;

/**
 * One exchange's span, from its admission to its end, on the exchange's loop. What the exchange
 * learns on the way (the server each attempt goes to, the failure Kodiak answers for) is kept
 * here and given to the SDK's span in one call at the end: the SDK's span takes a monitor per
 * call, so fewer calls are fewer (uncontended) monitor entries. A span not sampled records
 * nothing: its ids still travel upstream and into the access log.
 */
public final class ExchangeSpan {
    static final AttributeKey<Long> STATUS = AttributeKey.longKey("http.response.status_code");
    static final AttributeKey<String> SERVER_ADDRESS = AttributeKey.stringKey("server.address");
    static final AttributeKey<Long> SERVER_PORT = AttributeKey.longKey("server.port");
    static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
    static final AttributeKey<Long> ATTEMPTS = AttributeKey.longKey("kodiak.upstream.attempts");
    static final AttributeKey<String> RETRY_CAUSE = AttributeKey.stringKey("kodiak.retry.cause");
    static final AttributeKey<String> RETRY_DETAIL = AttributeKey.stringKey("kodiak.retry.detail");

    private final Span span;
    private final SpanContext context;
    /** The client's tracestate goes upstream only with the traceparent it belongs to. */
    private final boolean continued;
    private final boolean recording;
    private String serverHost;
    private int serverPort;
    private int attempts;
    private String failureCause;
    private String failureDetail;

    ExchangeSpan(Span span, boolean continued) {
        this.span = span;
        this.context = span.getSpanContext();
        this.continued = continued;
        this.recording = span.isRecording();
    }

    /** 32 hex digits: the trace's id, the client's when it sent a valid traceparent. */
    public String traceId() {
        return context.getTraceId();
    }

    /** 16 hex digits: Kodiak's span, the upstream request's parent. */
    public String spanId() {
        return context.getSpanId();
    }

    /** The traceparent value the upstream gets: this trace, Kodiak's span as parent, the sampled flag as decided. */
    public String traceparent() {
        return "00-" + context.getTraceId() + "-" + context.getSpanId() + "-" + context.getTraceFlags().asHex();
    }

    /** True when the client's traceparent was valid and continued: its tracestate goes on too. */
    public boolean passesTraceState() {
        return continued;
    }

    /** True when the span is sampled: its attributes and events are kept and exported. */
    public boolean recording() {
        return recording;
    }

    /** An attempt goes to {@code host:port}; the last one is the span's server.address and server.port. */
    public void attempt(String host, int port) {
        serverHost = host;
        serverPort = port;
        attempts++;
    }

    /** A failed attempt is tried again: an event on the span, at the time it happened. */
    public void retried(String cause, String server, String detail) {
        if (recording) {
            span.addEvent("retry", Attributes.of(SERVER_ADDRESS, server, RETRY_CAUSE, cause,
                    RETRY_DETAIL, detail == null ? "" : detail));
        }
    }

    /** Kodiak answers (or ends) the exchange for {@code cause} (ProxyError's metric cause). */
    public void failed(String cause, String detail) {
        if (failureCause == null) {
            failureCause = cause;
            failureDetail = detail;
        }
    }

    /** The exchange ended with {@code status} (499: the client left first). */
    public void end(int status) {
        if (!recording) {
            return;
        }
        io.opentelemetry.api.common.AttributesBuilder attributes = Attributes.builder().put(STATUS, (long) status);
        if (serverHost != null) {
            attributes.put(SERVER_ADDRESS, serverHost).put(SERVER_PORT, (long) serverPort)
                    .put(ATTEMPTS, (long) attempts);
        }
        if (failureCause != null) {
            attributes.put(ERROR_TYPE, failureCause);
        } else if (status >= 500) {
            attributes.put(ERROR_TYPE, Integer.toString(status));
        }
        span.setAllAttributes(attributes.build());
        // HTTP semantic conventions for a server span: a 5xx is an error, a 4xx is the client's.
        if (status >= 500) {
            span.setStatus(StatusCode.ERROR, failureCause == null ? "" : failureCause + ": " + failureDetail);
        }
        span.end();
    }
}
