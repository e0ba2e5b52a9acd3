package io.kodiak.exchange;

import io.kodiak.config.ProxyProtocolVersion;
import io.kodiak.config.UpstreamGroupConfig.RetryOn;
import io.kodiak.http.ResponseHead;
import io.kodiak.routing.Route;
import io.kodiak.upstream.UpstreamGroup;
import io.kodiak.upstream.UpstreamServer;

/**
 * An exchange's tries, as Envoy's router keeps its upstream requests: the attempt in progress,
 * the next server the {@link RetryPolicy} picks, and what a failed attempt leads to, another try
 * or the exchange's failure. Every attempt's verdict reaches its server's health here, once. One
 * per exchange, on its loop.
 */
final class Attempts {
    private final Exchange exchange;
    private final UpstreamGroup group;
    private final RetryPolicy policy;
    private final RequestBody body;
    private final ForwardedRequest request;
    private final Route route;
    /** Refusals (h2) an exchange rides out before one fails it. */
    static final int MAX_REFUSED = 3;
    private int refusals;
    /** The try in progress; null between two, and after the end. */
    private UpstreamAttempt current;

    Attempts(Exchange exchange, UpstreamGroup group, RetryPolicy policy, RequestBody body, ForwardedRequest request,
             Route route) {
        this.exchange = exchange;
        this.group = group;
        this.policy = policy;
        this.body = body;
        this.request = request;
        this.route = route;
    }

    /** The group's connections open with a PROXY header naming this exchange's client. */
    boolean sendsProxyHeader() {
        return group.settings().pool().proxyProtocol() != ProxyProtocolVersion.OFF;
    }

    /** The first attempt: the group counts the request, a server is picked and its pool asked. */
    void start() {
        String unavailable = group.unavailable();
        if (unavailable != null) {
            // A group whose names have never resolved: nothing to try, and nothing for its health to hear.
            exchange.fail(ProxyError.NO_SERVER, "group " + group.name() + ": " + unavailable);
            return;
        }
        group.requestStarted();
        if (!tryNextServer()) {
            // Not expected: the first attempt always finds a server (panic mode at worst).
            exchange.fail(ProxyError.CONNECT_FAILED, "no server of group " + group.name() + " to try");
        }
    }

    /** The stream of the attempt in progress; null while it waits for a connection, and between attempts. */
    UpstreamStream stream() {
        return current == null ? null : current.stream();
    }

    boolean isCurrent(UpstreamAttempt attempt) {
        return attempt != null && attempt == current;
    }

    /** host:port of every server tried, in order; null before the first. */
    String serversTried() {
        return policy.serversTried();
    }

    /** A new attempt on a server of the group not tried yet; false when none is left. */
    private boolean tryNextServer() {
        UpstreamServer next = policy.next();
        if (next == null) {
            return false;
        }
        current = new UpstreamAttempt(exchange, next, false);
        traceAttempt(next);
        current.begin();
        return true;
    }

    /** The same server once more, on a new connection of its own (the pooled one was stale); nothing was answered. */
    void retryFresh(UpstreamAttempt stale, String why) {
        stale.abandon(false);
        exchange.retrying();
        current = stale.again();
        if (request.span() != null) {
            request.span().retried(why, stale.server().authority(), null);
        }
        traceAttempt(current.server());
        current.acquire();
    }

    /** The span (when traced) names the server of the attempt in progress. */
    private void traceAttempt(UpstreamServer server) {
        if (request.span() != null) {
            request.span().attempt(server.host(), server.port());
        }
    }

    /**
     * An attempt failed: its server's health hears it, the policy decides whether another server
     * gets the request, and otherwise the exchange fails with the failure's answer.
     */
    void failed(UpstreamAttempt failed, AttemptFailure failure) {
        Phase phase = exchange.phase();
        if (phase.isOver() || failed != current) {
            return;
        }
        if (failure.verdict() != null) {
            failed.server().failed(failure.verdict(), failed.startMillis());
        }
        boolean nothingSent = phase == Phase.CONNECTING
                || failure.error() == ProxyError.UPSTREAM_TLS && body.onlyHeadWritten();
        if (policy.allows(failure, !nothingSent, resendable(), exchange.answerBegun())) {
            retryElsewhere(failure);
        } else {
            exchange.fail(failure.error(), failure.detail());
        }
    }

    /**
     * An idle pooled connection closed as it was reused, before anything of the answer: the
     * request goes once more to the same server, on a new connection. False when the policy
     * says no (then the close is a failure).
     */
    boolean retriedStale(UpstreamAttempt closed) {
        if (!policy.allowsStaleRetry(closed.reused(), resendable())) {
            return false;
        }
        retryFresh(closed, "stale_connection");
        return true;
    }

    /**
     * The server refused the request unprocessed (h2): it goes once more to the same server, on
     * another connection, when nothing of it is lost (only its head was sent). A server cycling
     * its connections (a GOAWAY after so many requests, as nginx's keepalive_requests) can refuse
     * a request twice in a row; past {@link #MAX_REFUSED} refusals it fails as a closed connection.
     */
    boolean retriedRefused(UpstreamAttempt refused) {
        if (++refusals > MAX_REFUSED || !body.onlyHeadWritten()) {
            return false;
        }
        retryFresh(refused, "refused_stream");
        return true;
    }

    /**
     * The server's final response head has come. A status the group retries on (502, 503, 504)
     * counts against the server's health, and when the request may be retried the response is
     * dropped with its connection and the next server gets the request: true then. Any other
     * status is a success for the server's health.
     */
    boolean retriedOnStatus(UpstreamAttempt from, ResponseHead head) {
        RetryOn condition = RetryOn.ofStatus(head.status());
        if (condition == null) {
            from.server().succeeded(from.startMillis());
            return false;
        }
        AttemptFailure failure = AttemptFailure.status(condition, head.status());
        from.server().failed(failure.verdict(), from.startMillis());
        if (policy.allows(failure, true, resendable(), exchange.answerBegun())) {
            retryElsewhere(failure);
            return true;
        }
        return false;
    }

    /** After the policy allowed it: the failed attempt is let go, the next server gets the request. */
    private void retryElsewhere(AttemptFailure failure) {
        UpstreamAttempt failed = current;
        finish(false);
        exchange.retrying();
        group.retried();
        Recorder.infoRetried(request, route, failure, failed.server().authority());
        if (request.span() != null) {
            request.span().retried(failure.error().cause, failed.server().authority(), failure.detail());
        }
        if (!tryNextServer()) {
            exchange.fail(failure.error(), failure.detail() + "; no other server to try");
        }
    }

    /**
     * The request may be sent once more after it went out: idempotent, and nothing but its head
     * was sent ({@link RequestBody#onlyHeadWritten}).
     */
    private boolean resendable() {
        return body.onlyHeadWritten() && request.method().isIdempotent();
    }

    /** Lets the attempt in progress go: its connection back to the pool when {@code reusable}, else closed. */
    void finish(boolean reusable) {
        UpstreamAttempt last = current;
        if (last == null) {
            return;
        }
        current = null;
        last.abandon(reusable);
        last.server().end();
    }
}
