package io.kodiak.log;

/**
 * What the access log knows of one finished request. Strings are null when unknown (a head
 * refused before its method could be read, no upstream asked); {@code upstreamNanos} is -1 when no
 * request reached an upstream. {@code requestId}, {@code host} and {@code headers} are filled only
 * when the format uses them ({@link AccessLogFormat#uses}, {@link AccessLogFormat#requestHeaders}).
 * {@code traceId} and {@code spanId}: the exchange's trace context, null when it has none (tracing off).
 */
public record AccessLogEntry(long timeMillis, String clientAddress, String method, String path, String query,
                             String protocol, int status, long bytesIn, long bytesOut, String upstream,
                             long upstreamNanos, long totalNanos, String tlsProtocol, String requestId, String host,
                             String scheme, String route, String[] headers, String traceId, String spanId) {
}
