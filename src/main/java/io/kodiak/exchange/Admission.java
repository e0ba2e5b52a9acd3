package io.kodiak.exchange;

import io.kodiak.http.RequestHead;
import io.kodiak.http.RequestMethod;
import io.kodiak.routing.HostName;
import io.kodiak.routing.Rewrites;
import io.kodiak.routing.Route;
import io.kodiak.routing.Router;

import java.util.concurrent.TimeUnit;

/**
 * Whether a parsed request may be forwarded, and where: the checks made before any upstream is
 * asked, in order: the request itself (method, size, dot segments), its host and route, the
 * request limits, and the upstream target its route's rewrites make of it.
 */
public final class Admission {
    private final ForwardingServices services;

    public Admission(ForwardingServices services) {
        this.services = services;
    }

    /** Where the client side's writes for an exchange go (counted against the write-queue budget). */
    public io.kodiak.transport.WriteQueues writeQueues() {
        return services.writeQueues();
    }

    /** The proxy is stopping: new requests are refused, connections close once their exchanges end. */
    public boolean draining() {
        return services.drain().isDraining();
    }

    /** The stop's grace period ran out: what is left is ended on the calling thread. */
    public boolean drainExpired() {
        return services.drain().isExpired();
    }

    /** The loops that own connections: a client connection's events from other threads are posted to its own. */
    public io.kodiak.loop.EventLoops loops() {
        return services.loops();
    }

    /**
     * The route and upstream target for a head, or the refusal that answers it. {@code
     * generation}: the configuration both were decided by, which the exchange keeps to its end;
     * {@code host}: the request's host name when the generation needs it; {@code requestNumber}:
     * its request id (0: none taken, as nothing writes one unless the answer is a 5xx);
     * {@code retryAfterSeconds}: with a 429, when to come back.
     */
    public record Decision(Route route, Rewrites.Target target, ProxyError refusal, Generation generation, String host,
                           long requestNumber, long retryAfterSeconds) {
        static Decision refused(ProxyError refusal, Route route, Generation generation, String host, long number) {
            return new Decision(route, null, refusal, generation, host, number, 0);
        }

        /** The request's id number for a 5xx answer to it: its own, or one taken now (0 for other answers). */
        public long requestNumberFor5xx() {
            return requestNumber != 0 || refusal == null || refusal.status < 500 ? requestNumber : RequestIds.next();
        }

        /** The request id as text (only where it is written: a 5xx answer, a log line). */
        public String requestId() {
            return RequestIds.format(requestNumber);
        }
    }

    public Decision decide(RequestHead head, ClientStream client) {
        Generation generation = services.generation();
        // 0 until needed: a shared counter is a contended cache line per request on every core.
        long number = generation.needsRequestId() ? RequestIds.next() : 0;
        String host = generation.needsHost() ? hostOf(head) : null;
        ProxyError refusal = refusalFor(head, generation);
        if (refusal != null) {
            return Decision.refused(refusal, null, generation, host, number);
        }
        Router router = generation.router();
        if (router.usesHosts() && client.misdirected(host)) {
            return Decision.refused(ProxyError.MISDIRECTED, null, generation, host, number);
        }
        Route route = router.match(host, head.path());
        if (route == null) {
            return Decision.refused(ProxyError.NO_ROUTE, null, generation, host, number);
        }
        if (!generation.limits().isEmpty()) {
            long wait = generation.limits().take(route.name(), key -> LimitKeys.of(key, head, client), System.nanoTime());
            if (wait > 0) {
                long seconds = Math.max(1, TimeUnit.NANOSECONDS.toSeconds(wait + TimeUnit.SECONDS.toNanos(1) - 1));
                return new Decision(route, null, ProxyError.RATE_LIMITED, generation, host, number, seconds);
            }
        }
        Rewrites.Target target;
        try {
            target = route.upstreamTarget(head.path(), head.query());
        } catch (Rewrites.TooCostly e) {
            return Decision.refused(ProxyError.REWRITE_TOO_COSTLY, route, generation, host, number);
        }
        if (route.mappingMayJoinSegments() && Router.hasDotSegment(target.path())) {
            // The mapping joined parts into a new "..": a rewrite's groups, or a prefix without a
            // trailing slash ("/api" + "../admin" from "/api../admin"). The upstream would resolve it.
            return Decision.refused(ProxyError.DOT_SEGMENT, route, generation, host, number);
        }
        return new Decision(route, target, null, generation, host, number, 0);
    }

    /** The host a request is for: an absolute-form target's authority, else its Host field (RFC 9112 §3.2.2). */
    private static String hostOf(RequestHead head) {
        byte[] array = head.array();
        if (head.hasAuthority()) {
            return HostName.of(array, head.authorityStart(), head.authorityEnd());
        }
        int field = head.hostField();
        return field < 0 ? null : HostName.of(array, head.valueStart(field), head.valueEnd(field));
    }

    private ProxyError refusalFor(RequestHead head, Generation generation) {
        if (services.drain().isDraining()) {
            return ProxyError.DRAINING;
        }
        RequestMethod method = head.method();
        if (method == RequestMethod.CONNECT || method == RequestMethod.PRI) {
            // Kodiak opens no tunnels on request, and speaks HTTP/1.1 only.
            return ProxyError.UNSUPPORTED_METHOD;
        }
        if (method == RequestMethod.TRACE && head.hasBody()) {
            // RFC 9110 §9.3.8: a client must not send content in a TRACE request.
            return ProxyError.CONTENT_NOT_ALLOWED;
        }
        if (generation.exceedsBodyLimit(head.contentLength())) {
            return ProxyError.BODY_TOO_LARGE;
        }
        if (Router.hasDotSegment(head.path())) {
            // The route swaps its prefix for the upstream's base path; "/api/../admin" would leave it.
            return ProxyError.DOT_SEGMENT;
        }
        return null;
    }

    /** Starts forwarding {@code head} on the route {@code decision} found, for {@code client}. */
    public Exchange begin(ClientStream client, RequestHead head, Decision decision) {
        Route route = decision.route();
        boolean upgrade = head.asksUpgrade() && route.upgrade();
        String protocol = client.protocol(head);
        String tls = client.tlsProtocol();
        // Tracing off: no tracer, and this one check is all it costs.
        io.kodiak.tracing.Tracing tracing = services.tracing();
        io.kodiak.tracing.ExchangeSpan span = tracing == null ? null
                : tracing.begin(head, route.name(), protocol, tls != null, client.address());
        Exchange exchange = new Exchange(services, decision.generation(), client, head,
                ForwardedRequest.of(head, upgrade, protocol, client.address(), tls, decision, span), route,
                decision.target());
        services.drain().exchangeStarted();
        return exchange;
    }

    /**
     * Counts and logs a request answered in Kodiak's own name without an exchange. Recorded
     * before the answer leaves: a client that reads it and then asks /metrics must find it
     * counted. {@code decision} is null when the head was refused before it could be read;
     * {@code bodyBytes}: what the answer's body carries ($body_bytes_sent).
     */
    public void recordRefusal(ClientStream client, RequestHead head, Decision decision, ProxyError refusal, long startNanos,
                              long bodyBytes) {
        services.onError(refusal);
        Generation generation = decision == null ? services.generation() : decision.generation();
        services.recorder().refusal(client, head, decision, generation, refusal, System.nanoTime() - startNanos, bodyBytes);
    }

    /** The body bytes of Kodiak's answer to {@code head} (none to HEAD) for {@code decision}'s refusal. */
    public static long answerBytes(RequestHead head, Decision decision) {
        return head.method() == io.kodiak.http.RequestMethod.HEAD ? 0
                : decision.refusal().answerBody(null, decision.requestNumberFor5xx()).length;
    }

    public ForwardingServices services() {
        return services;
    }
}
