package io.kodiak.support;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test OTLP/HTTP collector on an ephemeral loopback port: each POST to /v1/traces is decoded as
 * an ExportTraceServiceRequest (protobuf) and its spans kept with their resource. {@link #hold}
 * makes it a slow collector: requests wait until {@link #release}.
 */
public final class OtlpReceiver implements AutoCloseable {
    /** One received span with the resource it came under. */
    public record Received(Resource resource, Span span) {
        public String traceId() {
            return HexFormat.of().formatHex(span.getTraceId().toByteArray());
        }

        public String spanId() {
            return HexFormat.of().formatHex(span.getSpanId().toByteArray());
        }

        public String parentSpanId() {
            return HexFormat.of().formatHex(span.getParentSpanId().toByteArray());
        }

        /** The attribute's value as text (a number as its digits), or null. */
        public String attribute(String key) {
            return valueOf(span.getAttributesList(), key);
        }

        public String resourceAttribute(String key) {
            return valueOf(resource.getAttributesList(), key);
        }
    }

    private final HttpServer server;
    private final List<Received> spans = new CopyOnWriteArrayList<>();
    private final AtomicInteger requests = new AtomicInteger();
    private volatile CountDownLatch held = new CountDownLatch(0);

    public OtlpReceiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        server.createContext("/v1/traces", this::export);
        server.setExecutor(Executors.newCachedThreadPool());
        server.start();
    }

    public String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1/traces";
    }

    public List<Received> spans() {
        return spans;
    }

    /** Export requests received (whether decoded or still held). */
    public int requests() {
        return requests.get();
    }

    /** From now on each export request waits, unanswered, until {@link #release}. */
    public void hold() {
        held = new CountDownLatch(1);
    }

    public void release() {
        held.countDown();
    }

    private void export(HttpExchange exchange) throws IOException {
        try (exchange) {
            requests.incrementAndGet();
            try {
                held.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            ExportTraceServiceRequest request = ExportTraceServiceRequest.parseFrom(body);
            for (ResourceSpans resourceSpans : request.getResourceSpansList()) {
                for (ScopeSpans scope : resourceSpans.getScopeSpansList()) {
                    for (Span span : scope.getSpansList()) {
                        spans.add(new Received(resourceSpans.getResource(), span));
                    }
                }
            }
            byte[] answer = ExportTraceServiceResponse.getDefaultInstance().toByteArray();
            exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, answer.length == 0 ? -1 : answer.length);
            if (answer.length > 0) {
                exchange.getResponseBody().write(answer);
            }
        }
    }

    private static String valueOf(List<KeyValue> attributes, String key) {
        for (KeyValue attribute : attributes) {
            if (attribute.getKey().equals(key)) {
                AnyValue value = attribute.getValue();
                return switch (value.getValueCase()) {
                    case STRING_VALUE -> value.getStringValue();
                    case INT_VALUE -> Long.toString(value.getIntValue());
                    case BOOL_VALUE -> Boolean.toString(value.getBoolValue());
                    case DOUBLE_VALUE -> Double.toString(value.getDoubleValue());
                    default -> value.toString();
                };
            }
        }
        return null;
    }

    @Override
    public void close() {
        release();
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }
}
