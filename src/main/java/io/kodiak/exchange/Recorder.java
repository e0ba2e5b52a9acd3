package io.kodiak.exchange;

import io.kodiak.log.AccessLog;
import io.kodiak.routing.Route;

/** The access log line and the metrics of every request, forwarded or answered by Kodiak itself. */
final class Recorder {
    private final ExchangeObserver observer;

    Recorder(ExchangeObserver observer) {
        this.observer = observer;
    }

    /** {@code servers}: host:port of each server tried, comma-separated in order (null when none was). */
    void exchange(Route route, String servers, int status, long bytesIn, long bytesOut, long upstreamNanos,
                  long totalNanos, ForwardedRequest request) {
        observer.onExchange(route.prefix(), servers, status, bytesIn, bytesOut, upstreamNanos, totalNanos);
        if (AccessLog.enabled()) {
            AccessLog.record(request.clientAddress(), request.methodName(), request.path(), request.query(), status,
                    bytesIn, bytesOut, servers, upstreamNanos, totalNanos, request.tlsProtocol());
        }
    }

    /**
     * A request answered in Kodiak's own name without an exchange. {@code method} and {@code path}
     * are null when the head was refused before they could be read.
     */
    void refusal(String clientAddress, String tlsProtocol, String method, String path, String query, Route route, ProxyError error,
                 long elapsedNanos) {
        observer.onExchange(route == null ? null : route.prefix(), null, error.status, 0, 0, -1, elapsedNanos);
        if (AccessLog.enabled()) {
            AccessLog.record(clientAddress, method == null ? "-" : method, path == null ? "-" : path, query,
                    error.status, 0, 0, null, -1, elapsedNanos, tlsProtocol);
        }
    }
}
