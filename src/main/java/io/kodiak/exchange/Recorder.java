package io.kodiak.exchange;

import io.kodiak.http.RequestHead;
import io.kodiak.log.AccessLog;
import io.kodiak.log.AccessLogEntry;
import io.kodiak.log.AccessLogFormat;
import io.kodiak.routing.Route;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The access log line and the metrics of every request, forwarded or answered by Kodiak itself. */
final class Recorder {
    private static final Logger LOG = LoggerFactory.getLogger(Exchange.class);
    private final ExchangeObserver observer;

    Recorder(ExchangeObserver observer) {
        this.observer = observer;
    }

    /** {@code servers}: host:port of each server tried, comma-separated in order (null when none was). */
    void exchange(Route route, String servers, int status, long bytesIn, long bytesOut, long upstreamNanos,
                  long totalNanos, ForwardedRequest request, Generation generation) {
        observer.onExchange(route.name(), servers, status, bytesIn, bytesOut, upstreamNanos, totalNanos);
        if (AccessLog.enabled()) {
            AccessLogFormat format = generation.accessLog();
            AccessLog.record(format, new AccessLogEntry(System.currentTimeMillis(), request.clientAddress(),
                    request.methodName(), request.path(), request.query(), request.protocol(), status, bytesIn,
                    bytesOut, servers, upstreamNanos, totalNanos, request.tlsProtocol(),
                    format.uses(AccessLogFormat.Variable.REQUEST_ID) ? request.requestId() : null, request.host(),
                    ForwardedRequest.scheme(request.tlsProtocol()), route.name(), request.loggedHeaders(),
                    request.span() == null ? null : request.span().traceId(),
                    request.span() == null ? null : request.span().spanId()));
        }
    }

    /**
     * A request answered in Kodiak's own name without an exchange. {@code head} is null when it
     * was refused before it could be read, and {@code decision} null when no route was looked for.
     */
    void refusal(ClientStream client, RequestHead head, Admission.Decision decision, Generation generation,
                 ProxyError error, long elapsedNanos, long bodyBytes) {
        Route route = decision == null ? null : decision.route();
        observer.onExchange(route == null ? null : route.name(), null, error.status, 0, bodyBytes, -1, elapsedNanos);
        if (AccessLog.enabled()) {
            AccessLogFormat format = generation.accessLog();
            String requestId = !format.uses(AccessLogFormat.Variable.REQUEST_ID) ? null
                    : decision != null ? decision.requestId() : RequestIds.format(RequestIds.next());
            String tls = client.tlsProtocol();
            AccessLog.record(format, new AccessLogEntry(System.currentTimeMillis(), client.address(),
                    head == null ? null : head.methodName(), head == null ? null : head.path(),
                    head == null ? null : head.query(), head == null ? null : client.protocol(head), error.status,
                    0, bodyBytes, null, -1, elapsedNanos, tls, requestId, decision == null ? null : decision.host(),
                    ForwardedRequest.scheme(tls), route == null ? null : route.name(),
                    LoggedHeaders.of(head, format), null, null));
        }
    }

    /** The one WARN line of a failed exchange, in kodiak.log (under the Exchange logger, as operators filter it). */
    static void warnFailed(ForwardedRequest request, Route route, String servers, ProxyError error, long requestNumber,
                           String detail) {
        LOG.warn("{} {} route={} upstream={} cause={} request_id={}: {}", request.methodName(), request.path(), route.name(),
                servers == null ? route.upstreamUrl() : servers, error.cause, RequestIds.format(requestNumber), detail);
    }

    /** A retry's INFO line, in kodiak.log. */
    static void infoRetried(ForwardedRequest request, Route route, AttemptFailure failure, String server) {
        LOG.info("{} {} route={} retried after {} from {}: {}", request.methodName(), request.path(), route.name(),
                failure.error().cause, server, failure.detail());
    }
}
