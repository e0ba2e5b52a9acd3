package io.kodiak.forward;

import io.kodiak.http.RequestChecks;
import io.kodiak.log.AccessLog;
import io.kodiak.routing.Route;
import io.kodiak.upstream.ResponseListener;
import io.kodiak.upstream.UpstreamConnection;
import io.kodiak.upstream.UpstreamPool;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.CompletionHandler;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.WriteHandler;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;
import org.glassfish.grizzly.http.HttpBrokenContent;
import org.glassfish.grizzly.http.HttpContent;
import org.glassfish.grizzly.http.HttpHeader;
import org.glassfish.grizzly.http.HttpPacket;
import org.glassfish.grizzly.http.HttpRequestPacket;
import org.glassfish.grizzly.http.HttpResponsePacket;
import org.glassfish.grizzly.http.HttpServerFilter;
import org.glassfish.grizzly.http.util.HttpStatus;
import org.glassfish.grizzly.memory.Buffers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.ConnectException;
import java.util.concurrent.TimeoutException;

/**
 * One request and its response, from the parsed request header to the last response byte.
 * It owns everything whose lifetime is the exchange: the upstream connection (released to the
 * pool only after a complete, reusable response; discarded on any error), the response timer,
 * the suspended client contexts used for back-pressure, and the single "finished" transition
 * after which nothing more is written anywhere.
 *
 * <p>Bodies are forwarded as the codecs hand them over: the {@link Buffer} inside each decoded
 * {@link HttpContent} is re-wrapped for the other side's codec, never copied. When the receiving
 * side's write queue is over its limit, the reading side's filter-chain context is suspended
 * (which stops reads on that connection) until the writer reports room again.
 *
 * <p>Two threads touch an exchange: the client connection's selector thread and the upstream
 * connection's. State changes happen under the exchange's lock; pool calls and chain resumptions
 * that may run other exchanges' code happen outside it, so exchanges never wait on each other.
 */
final class Exchange implements ResponseListener {
    private static final Logger LOG = LoggerFactory.getLogger(Exchange.class);
    private static final int CLIENT_CLOSED_STATUS = 499;

    private final ForwardingServices services;
    private final ClientConnection client;
    private final FilterChainContext clientCtx;
    private final Connection<?> clientConnection;
    private final HttpRequestPacket request;
    private final Route route;
    private final UpstreamPool pool;
    private final String upstreamPath;
    private final long startNanos = System.nanoTime();

    // Guarded by this.
    private HttpContent contentWithHeader;
    private Connection<?> upstream;
    private UpstreamConnection upstreamState;
    private HttpRequestPacket upstreamRequest;
    private boolean upstreamReused;
    private boolean retried;
    private boolean clientReading;
    private boolean requestSent;
    private HttpResponsePacket upstreamResponse;
    private boolean responseCommitted;
    /** The last response byte was handed to the client: from here only {@link #complete} may end the exchange. */
    private boolean responseComplete;
    private boolean finished;
    private FilterChainContext heldClientRead;
    private FilterChainContext heldUpstreamRead;
    private long requestBytes;
    private long responseBytes;
    private long sentNanos = -1;
    private long firstByteNanos = -1;
    private int status;

    Exchange(ForwardingServices services, ClientConnection client, FilterChainContext clientCtx,
             HttpRequestPacket request, Route route) {
        this.services = services;
        this.client = client;
        this.clientCtx = clientCtx;
        this.clientConnection = clientCtx.getConnection();
        this.request = request;
        this.route = route;
        this.pool = services.upstreams().poolFor(route.target());
        this.upstreamPath = route.rewrite(request.getRequestURI());
    }

    boolean isFor(HttpRequestPacket packet) {
        return packet == request;
    }

    // ------------------------------------------------------------------ start

    /** Called with the first decoded message (header, maybe some body); parks the client until an upstream is ready. */
    NextAction start(HttpContent first) {
        NextAction suspend = clientCtx.getSuspendAction();
        clientCtx.suspend();
        boolean tooLarge;
        synchronized (this) {
            contentWithHeader = first;
            requestBytes = first.getContent().remaining();
            tooLarge = services.exceedsBodyLimit(requestBytes);
        }
        if (tooLarge) {
            fail(ProxyError.BODY_TOO_LARGE, "request body over " + services.maxBodySize() + " bytes");
        } else {
            pool.acquire(new Acquisition(false));
        }
        return suspend;
    }

    private void onUpstreamReady(Connection<?> connection, boolean fresh) {
        boolean unused;
        synchronized (this) {
            unused = finished;
            if (!finished) {
                upstream = connection;
                upstreamState = UpstreamConnection.of(connection);
                upstreamReused = upstreamState.bind(this) && !fresh;
                sendRequestHeader(connection);
                if (!requestSent) {
                    services.deadlines().arm(upstreamState, services.stallTimeoutMillis());
                }
                if (RequestChecks.expectsContinue(request)) {
                    sendContinue();
                }
                if (!clientReading) {
                    clientReading = true;
                    // The header context stays suspended for the whole exchange (responses are
                    // written through it); a fork re-enables reads on a copy, so the body and a
                    // client close are seen. Under the lock: a fast upstream may already be
                    // answering, and completing the exchange recycles the header context.
                    clientCtx.fork(clientCtx.getStopAction());
                }
            }
        }
        if (unused) {
            pool.release(connection);
        }
    }

    private void sendRequestHeader(Connection<?> connection) {
        upstreamRequest = HeaderRewriter.upstreamRequest(request, route, upstreamPath, pool.persistent());
        HttpContent first = contentWithHeader;
        contentWithHeader = null;
        Buffer body = first == null ? Buffers.EMPTY_BUFFER : first.getContent();
        boolean last = first == null ? requestSent : first.isLast();
        connection.write(framed(upstreamRequest, body, last));
        if (first != null) {
            first.recycle();
        }
        if (last) {
            markRequestSent();
        }
    }

    /**
     * What to write for one decoded piece: the piece itself, the bare header when the piece is an
     * empty intermediate one and the header has not gone out yet, or null. An empty intermediate
     * piece must never be written: Grizzly encodes it as a zero-length chunk, which is the
     * end-of-body marker of chunked framing.
     */
    private static HttpPacket framed(HttpHeader header, Buffer body, boolean last) {
        if (last || body.hasRemaining()) {
            return HttpContent.builder(header).content(body).last(last).build();
        }
        return header.isCommitted() ? null : header;
    }

    private void sendContinue() {
        HttpResponsePacket interim = request.getResponse();
        HttpStatus.CONINTUE_100.setValues(interim);
        interim.setAcknowledgement(true);
        clientCtx.write(interim);
    }

    private void markRequestSent() {
        requestSent = true;
        sentNanos = System.nanoTime();
        services.deadlines().arm(upstreamState, services.responseTimeoutMillis());
    }

    private void onAcquireFailed(Throwable error) {
        ProxyError reason;
        if (error instanceof TimeoutException) {
            reason = pool.isAtCapacity() ? ProxyError.POOL_EXHAUSTED : ProxyError.CONNECT_TIMEOUT;
        } else if (error instanceof ConnectException && "Connect timeout".equals(error.getMessage())) {
            reason = ProxyError.CONNECT_TIMEOUT;
        } else {
            reason = ProxyError.CONNECT_FAILED;
        }
        fail(reason, String.valueOf(error.getMessage()));
    }

    // ------------------------------------------------------- request streaming

    /** A further piece of the request body from the client. */
    NextAction onRequestContent(FilterChainContext ctx, HttpContent content) {
        if (content instanceof HttpBrokenContent broken) {
            String why = "invalid chunked request body: " + broken.getException().getMessage();
            content.recycle();
            fail(ProxyError.BROKEN_BODY, why);
            return ctx.getStopAction();
        }
        Connection<?> waitFor = null;
        NextAction suspend = null;
        boolean tooLarge;
        synchronized (this) {
            if (finished) {
                content.recycle();
                return ctx.getStopAction();
            }
            Buffer body = content.getContent();
            requestBytes += body.remaining();
            tooLarge = services.exceedsBodyLimit(requestBytes);
            if (!tooLarge) {
                boolean last = content.isLast();
                HttpPacket piece = framed(upstreamRequest, body, last);
                if (piece != null) {
                    upstream.write(piece);
                }
                if (last) {
                    markRequestSent();
                } else {
                    services.deadlines().arm(upstreamState, services.stallTimeoutMillis());
                }
                if (!upstream.canWrite()) {
                    suspend = ctx.getSuspendAction();
                    ctx.suspend();
                    heldClientRead = ctx;
                    waitFor = upstream;
                }
            }
            content.recycle();
        }
        if (tooLarge) {
            fail(ProxyError.BODY_TOO_LARGE, "request body over " + services.maxBodySize() + " bytes");
            return ctx.getStopAction();
        }
        if (waitFor != null) {
            waitFor.notifyCanWrite(new Resume(true));
            return suspend;
        }
        return ctx.getStopAction();
    }

    // ------------------------------------------------------ response streaming

    @Override
    public NextAction onResponseContent(FilterChainContext ctx, HttpContent content) {
        boolean last;
        NextAction suspend = null;
        synchronized (this) {
            if (finished) {
                content.recycle();
                return ctx.getStopAction();
            }
            HttpResponsePacket response = request.getResponse();
            if (upstreamResponse == null) {
                upstreamResponse = (HttpResponsePacket) content.getHttpHeader();
                firstByteNanos = System.nanoTime();
                status = upstreamResponse.getStatus();
                HeaderRewriter.clientResponse(upstreamResponse, response, services.drain().isDraining());
            }
            Buffer body = content.getContent();
            last = content.isLast();
            responseBytes += body.remaining();
            responseCommitted = true;
            HttpPacket piece = framed(response, body, last);
            if (piece != null) {
                clientCtx.write(piece);
            }
            content.recycle();
            responseComplete = last;
            if (last) {
                services.deadlines().disarm(upstreamState);
            } else {
                // Progress: the next piece must come within idle-timeout, also while the client is
                // too slow to take this one (then upstream reads stay paused and the deadline runs out).
                services.deadlines().arm(upstreamState, services.stallTimeoutMillis());
            }
            if (!last && !clientConnection.canWrite()) {
                suspend = ctx.getSuspendAction();
                ctx.suspend();
                heldUpstreamRead = ctx;
            }
        }
        if (last) {
            complete(false);
            return ctx.getStopAction();
        }
        if (suspend != null) {
            clientConnection.notifyCanWrite(new Resume(false));
            return suspend;
        }
        return ctx.getStopAction();
    }

    /** Success: the response is complete (or ended by an upstream close that delimits it). */
    private void complete(boolean endedByClose) {
        Connection<?> connection;
        boolean reusable;
        FilterChainContext heldClient;
        synchronized (this) {
            if (finished) {
                return;
            }
            finished = true;
            connection = upstream;
            reusable = !endedByClose && requestSent && upstreamResponse.getProcessingState().isKeepAlive();
            heldClient = heldClientRead;
            heldClientRead = null;
        }
        UpstreamConnection.of(connection).unbind(this);
        if (reusable) {
            pool.release(connection);
        } else {
            pool.discard(connection);
        }
        if (!endedByClose) {
            // Parsed to the end, so the upstream codec no longer holds it: back to Grizzly's cache of
            // this thread, the upstream connection's, which built it.
            upstreamResponse.recycle();
        }
        endClientSide(heldClient, true, true, endedByClose ? null : upstreamRequestSent());
    }

    /** The request sent upstream, which its codec no longer holds once the response was parsed to the end. */
    private synchronized HttpRequestPacket upstreamRequestSent() {
        upstreamRequest.setExpectContent(false);
        return upstreamRequest;
    }

    // ---------------------------------------------------------------- failures

    /**
     * Ends the exchange for {@code error}: the client gets Kodiak's answer if nothing of the
     * upstream's response was written yet, otherwise its connection is closed (a half-sent
     * response cannot be corrected). The upstream connection is never reused after an error.
     */
    void fail(ProxyError error, String detail) {
        Ending ending;
        boolean answer;
        synchronized (this) {
            ending = endUnlessDone();
            if (ending == null) {
                return;
            }
            answer = !responseCommitted;
            if (answer) {
                status = error.status;
            }
        }
        abandonUpstream(ending);
        services.onError(error);
        LOG.warn("{} {} route={} upstream={} cause={}: {}", request.getMethod().getMethodString(),
                request.getRequestURI(), route.prefix(), route.upstreamUrl(), error.cause, detail);
        if (answer) {
            LocalResponse.send(clientCtx, request.getResponse(), error);
        } else {
            client.closeAfterAnswer();
        }
        endClientSide(ending.heldClient, answer, false, null);
        if (answer && error.closeClient) {
            // The answer said Connection: close; don't wait for a body that may never come.
            client.closeAfterAnswer();
        }
    }

    /** What the single transition to "finished" hands over: the upstream connection and any paused reads. */
    private record Ending(Connection<?> upstream, FilterChainContext heldClient, FilterChainContext heldUpstream) {
    }

    /**
     * The one transition to "finished", under the lock; null when the exchange already ended or its
     * response is complete (then only {@link #complete} may end it). Afterwards nothing is written anywhere.
     */
    private Ending endUnlessDone() {
        if (finished || responseComplete) {
            return null;
        }
        finished = true;
        Ending ending = new Ending(upstream, heldClientRead, heldUpstreamRead);
        heldClientRead = null;
        heldUpstreamRead = null;
        return ending;
    }

    /**
     * After a failure the upstream connection is mid-message or broken: it is closed, never pooled,
     * and a read paused on it is dropped rather than resumed.
     */
    private void abandonUpstream(Ending ending) {
        Connection<?> connection = ending.upstream;
        if (connection != null) {
            UpstreamConnection state = UpstreamConnection.of(connection);
            services.deadlines().disarm(state);
            state.unbind(this);
            pool.discard(connection);
        }
        if (ending.heldUpstream != null) {
            ending.heldUpstream.completeAndRecycle();
        }
    }

    /** The client connection closed: stop everything, and never pool the upstream connection mid-exchange. */
    void onClientClosed() {
        Ending ending;
        synchronized (this) {
            ending = endUnlessDone();
            if (ending == null) {
                return;
            }
            status = CLIENT_CLOSED_STATUS;
        }
        // The client is gone: its paused read is dropped with the connection, not resumed.
        abandonUpstream(ending);
        services.onError(null);
        clientCtx.completeAndRecycle();
        client.finish(this, request);
        services.drain().exchangeEnded();
        record();
    }

    @Override
    public void onInvalidResponse(String problem) {
        fail(ProxyError.INVALID_RESPONSE, problem);
    }

    @Override
    public void onUpstreamClosed() {
        Connection<?> stale = null;
        boolean endOfBody = false;
        synchronized (this) {
            if (finished || responseComplete) {
                return;
            }
            if (upstreamResponse == null) {
                if (!retried && upstreamReused && requestSent && requestBytes == 0
                        && HeaderRewriter.isIdempotent(request.getMethod())) {
                    retried = true;
                    stale = upstream;
                    upstream = null;
                }
            } else {
                endOfBody = isCloseDelimited(upstreamResponse);
            }
        }
        if (stale != null) {
            // The upstream closed an idle pooled connection as we reused it; nothing was answered,
            // so an idempotent, bodiless request is safe to send once more, on a brand-new connection.
            services.deadlines().disarm(UpstreamConnection.of(stale));
            pool.discard(stale);
            pool.acquireFresh(new Acquisition(true));
        } else if (endOfBody) {
            synchronized (this) {
                if (finished || responseComplete) {
                    return;
                }
                clientCtx.write(HttpContent.builder(request.getResponse()).last(true).build());
                responseComplete = true;
            }
            complete(true);
        } else {
            fail(ProxyError.UPSTREAM_CLOSED, upstreamResponse == null
                    ? "closed before any response byte" : "closed in the middle of the response body");
        }
    }

    /**
     * No progress before the deadline: what that means depends on where the exchange stands.
     * Waiting for the response: response-timeout (504). Still receiving the request body: the
     * client stalled (408). Streaming the response: the client stopped reading or the upstream
     * stopped sending; the response has started, so the client connection is closed.
     */
    @Override
    public void onDeadline() {
        ProxyError reason;
        synchronized (this) {
            if (finished || responseComplete) {
                return;
            }
            if (!requestSent && upstreamResponse == null) {
                reason = ProxyError.REQUEST_BODY_STALLED;
            } else if (upstreamResponse == null) {
                reason = ProxyError.RESPONSE_TIMEOUT;
            } else {
                reason = ProxyError.TRANSFER_STALLED;
            }
        }
        long limit = reason == ProxyError.RESPONSE_TIMEOUT ? services.responseTimeoutMillis() : services.stallTimeoutMillis();
        fail(reason, "no progress within " + limit + " ms");
    }

    private static boolean isCloseDelimited(HttpResponsePacket response) {
        return response.isExpectContent() && !response.isChunked() && response.getContentLength() < 0;
    }

    // ------------------------------------------------------------- client side

    /**
     * Hands the client connection back to the codec: keep-alive or close per the response,
     * skipping or closing on an unread request body, then lets a pipelined request proceed.
     */
    private void endClientSide(FilterChainContext heldClient, boolean responseWritten, boolean recycle,
                               HttpRequestPacket recyclableUpstreamRequest) {
        if (responseWritten) {
            clientCtx.notifyDownstream(HttpServerFilter.RESPONSE_COMPLETE_EVENT);
        }
        boolean reading;
        boolean bodyConsumed;
        synchronized (this) {
            reading = clientReading;
            // Known from this exchange's own state, not the codec's expect-content flag: the codec
            // clears that on the client's thread before handing over the last piece, so read from
            // here it could let that piece arrive after the exchange ended and start a new one.
            bodyConsumed = requestSent;
        }
        if (reading) {
            clientCtx.completeAndRecycle();
        } else {
            // Reads were never re-enabled for this request; resuming the context re-enables them.
            clientCtx.resume(clientCtx.getStopAction());
        }
        if (heldClient != null) {
            heldClient.resume(heldClient.getStopAction());
        }
        // A request whose body was read to the end can go back to Grizzly's cache (after the access
        // log has read it); one still receiving body bytes stays, so late pieces are recognised and dropped.
        boolean recyclable = recycle && bodyConsumed;
        FilterChainContext next = client.finish(this, recyclable ? null : request);
        services.drain().exchangeEnded();
        record();
        if (recyclable || recyclableUpstreamRequest != null) {
            client.recycleLater(recyclable ? request : null, recyclableUpstreamRequest);
        }
        if (next != null) {
            next.resume();
        }
    }

    /** Access log line and metrics, once per exchange. */
    private void record() {
        long now = System.nanoTime();
        long upstreamNanos;
        synchronized (this) {
            upstreamNanos = sentNanos < 0 ? -1 : (firstByteNanos < 0 ? now : firstByteNanos) - sentNanos;
        }
        String authority = route.target().authority();
        services.observer().onExchange(route.prefix(), authority, status, requestBytes, responseBytes,
                upstreamNanos, now - startNanos);
        if (AccessLog.enabled()) {
            AccessLog.record(request.getRemoteAddress(), request.getMethod().getMethodString(),
                    request.getRequestURI(), request.getQueryString(), status, requestBytes, responseBytes,
                    authority, upstreamNanos, now - startNanos);
        }
    }

    // ------------------------------------------------------------ callbacks

    private final class Acquisition implements CompletionHandler<Connection> {
        private final boolean fresh;

        Acquisition(boolean fresh) {
            this.fresh = fresh;
        }

        @Override
        public void completed(Connection connection) {
            onUpstreamReady(connection, fresh);
        }

        @Override
        public void failed(Throwable error) {
            onAcquireFailed(error);
        }

        @Override
        public void cancelled() {
            onAcquireFailed(new ConnectException("Connect timeout"));
        }

        @Override
        public void updated(Connection result) {
        }
    }

    /** Resumes a read that was stopped because the other side's write queue was full. */
    private final class Resume implements WriteHandler {
        private final boolean clientRead;

        Resume(boolean clientRead) {
            this.clientRead = clientRead;
        }

        @Override
        public void onWritePossible() {
            FilterChainContext held;
            synchronized (Exchange.this) {
                if (clientRead) {
                    held = heldClientRead;
                    heldClientRead = null;
                } else {
                    held = heldUpstreamRead;
                    heldUpstreamRead = null;
                }
            }
            if (held != null) {
                held.resume(held.getStopAction());
            }
        }

        @Override
        public void onError(Throwable error) {
            // The writer's connection failed; its close event ends the exchange.
        }
    }
}
