package io.kodiak.forward;

import io.kodiak.log.AccessLog;
import io.kodiak.routing.Route;
import io.kodiak.routing.Router;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.filterchain.BaseFilter;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;
import org.glassfish.grizzly.http.HttpBrokenContent;
import org.glassfish.grizzly.http.HttpContent;
import org.glassfish.grizzly.http.HttpRequestPacket;
import org.glassfish.grizzly.http.HttpServerFilter;
import org.glassfish.grizzly.http.Method;
import org.glassfish.grizzly.http.util.DataChunk;

import java.io.IOException;

/**
 * Last filter of the client chain, where Grizzly's HttpServer would put its HttpHandler layer:
 * it receives decoded request messages and either answers them itself (no route, bad framing,
 * too large, draining) or starts an {@link Exchange} and feeds it the body as it arrives.
 */
public final class ProxyFilter extends BaseFilter {
    private final ForwardingServices services;

    public ProxyFilter(ForwardingServices services) {
        this.services = services;
    }

    @Override
    public NextAction handleRead(FilterChainContext ctx) throws IOException {
        HttpContent content = ctx.getMessage();
        HttpRequestPacket request = (HttpRequestPacket) content.getHttpHeader();
        Connection<?> connection = ctx.getConnection();
        ClientConnection client = ClientConnection.of(connection);
        client.recycleFinished();

        Exchange current = client.current();
        if (current != null && current.isFor(request)) {
            return current.onRequestContent(ctx, content);
        }
        if (client.isFinished(request)) {
            // Body bytes of a request that was already answered (e.g. rejected early); the codec skips the rest.
            content.recycle();
            return ctx.getStopAction();
        }
        if (current != null) {
            NextAction suspend = ctx.getSuspendAction();
            if (client.holdIfBusy(ctx)) {
                return suspend;
            }
        }
        if (ClientConnection.isClosing(connection)) {
            content.recycle();
            return ctx.getStopAction();
        }
        return begin(ctx, client, request, content);
    }

    private NextAction begin(FilterChainContext ctx, ClientConnection client, HttpRequestPacket request,
                             HttpContent content) {
        Connection<?> connection = ctx.getConnection();
        ProxyError refusal = content instanceof HttpBrokenContent ? ProxyError.BROKEN_BODY : refusalFor(request);
        Route route = null;
        if (refusal == null) {
            route = services.router().match(request.getRequestURI());
            if (route == null) {
                refusal = ProxyError.NO_ROUTE;
            }
        }
        if (refusal != null) {
            recordRefusal(request, route, refusal);
            content.recycle();
            LocalResponse.send(ctx, request.getResponse(), refusal);
            ctx.notifyDownstream(HttpServerFilter.RESPONSE_COMPLETE_EVENT);
            if (refusal.closeClient) {
                // The answer said Connection: close; don't wait for a body that may never come.
                client.closeAfterAnswer();
            }
            client.finish(null, request);
            return ctx.getStopAction();
        }
        Exchange exchange = new Exchange(services, client, ctx, request, route);
        client.begin(exchange);
        services.drain().exchangeStarted();
        return exchange.start(content);
    }

    /**
     * Counts and logs a request answered in Kodiak's own name without an exchange, here or by the
     * codec (a head that could not be parsed). Recorded before the answer leaves: a client that
     * reads it and then asks /metrics must find it counted.
     */
    void recordRefusal(HttpRequestPacket request, Route route, ProxyError refusal) {
        long start = System.nanoTime();
        services.onError(refusal);
        long elapsed = System.nanoTime() - start;
        services.observer().onExchange(route == null ? null : route.prefix(), null, refusal.status, 0, 0, -1, elapsed);
        if (AccessLog.enabled()) {
            // A head refused by the codec may not have a method or target that parsed: its raw bytes, or "-".
            AccessLog.record(request.getRemoteAddress(), orDash(request.getMethodDC()),
                    orDash(request.getRequestURIRef().getRequestURIBC()), request.getQueryString(),
                    refusal.status, 0, 0, null, -1, elapsed);
        }
    }

    private static String orDash(DataChunk chunk) {
        String text = chunk.toString();
        return text == null || text.isEmpty() ? "-" : text;
    }

    /** Requests answered without contacting any upstream, or null when the request may be forwarded. */
    private ProxyError refusalFor(HttpRequestPacket request) {
        if (services.drain().isDraining()) {
            return ProxyError.DRAINING;
        }
        Method method = request.getMethod();
        if (method == Method.CONNECT || method == Method.PRI) {
            // Grizzly reads everything after these as an unframed body: forwarded, it would reach the
            // upstream as further requests on a pooled connection.
            return ProxyError.UNSUPPORTED_METHOD;
        }
        if (method.getPayloadExpectation() == Method.PayloadExpectation.NOT_ALLOWED
                && (request.getContentLength() > 0 || request.isChunked())) {
            // Grizzly parses a TRACE body as the next request; the upstream would wait for it instead.
            return ProxyError.CONTENT_NOT_ALLOWED;
        }
        if (services.exceedsBodyLimit(request.getContentLength())) {
            return ProxyError.BODY_TOO_LARGE;
        }
        if (Router.hasDotSegment(request.getRequestURI())) {
            // The route swaps its prefix for the upstream's base path; "/api/../admin" would leave it.
            return ProxyError.DOT_SEGMENT;
        }
        return null;
    }

    @Override
    public NextAction handleClose(FilterChainContext ctx) throws IOException {
        ClientConnection client = ClientConnection.peek(ctx.getConnection());
        if (client != null) {
            Exchange current = client.current();
            if (current != null) {
                current.onClientClosed();
            }
        }
        return ctx.getInvokeAction();
    }
}
