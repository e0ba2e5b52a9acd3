package io.kodiak.exchange;

import io.kodiak.http.RequestHead;
import io.kodiak.http.RequestMethod;
import io.kodiak.routing.Route;
import io.kodiak.routing.Router;

/** Whether a parsed request may be forwarded, and where: the checks made before any upstream is asked. */
public final class Admission {
    private final ForwardingServices services;

    public Admission(ForwardingServices services) {
        this.services = services;
    }

    /**
     * The route for {@code head}, or the refusal that answers it; {@code generation}: the
     * configuration both were decided by, which the exchange keeps to its end.
     */
    public record Decision(Route route, ProxyError refusal, Generation generation) {
    }

    public Decision decide(RequestHead head) {
        Generation generation = services.generation();
        ProxyError refusal = refusalFor(head, generation);
        if (refusal != null) {
            return new Decision(null, refusal, generation);
        }
        Route route = generation.router().match(head.path());
        return route == null ? new Decision(null, ProxyError.NO_ROUTE, generation) : new Decision(route, null, generation);
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
    public Exchange begin(ClientSide client, RequestHead head, Decision decision) {
        Route route = decision.route();
        boolean upgrade = head.asksUpgrade() && route.upgrade();
        Exchange exchange = new Exchange(services, decision.generation(), client, head,
                ForwardedRequest.of(head, upgrade, client.address(), client.tlsProtocol()), route);
        services.drain().exchangeStarted();
        return exchange;
    }

    /**
     * Counts and logs a request answered in Kodiak's own name without an exchange. Recorded
     * before the answer leaves: a client that reads it and then asks /metrics must find it counted.
     */
    public void recordRefusal(ClientSide client, RequestHead head, Route route, ProxyError refusal, long startNanos) {
        services.onError(refusal);
        services.recorder().refusal(client.address(), client.tlsProtocol(), head == null ? null : head.methodName(),
                head == null ? null : head.path(), head == null ? null : head.query(), route, refusal,
                System.nanoTime() - startNanos);
    }

    public ForwardingServices services() {
        return services;
    }
}
