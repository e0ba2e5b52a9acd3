package io.kodiak.exchange;

import io.kodiak.http.RequestHead;
import io.kodiak.http.ResponseHead;
import io.kodiak.http.Violation;
import io.kodiak.loop.EventLoop;
import io.kodiak.routing.Rewrites;
import io.kodiak.routing.Route;
import io.kodiak.transport.Pieces;
import io.kodiak.upstream.UpstreamGroup;
import org.glassfish.grizzly.Buffer;

/**
 * One request and its final answer, from the parsed request head to the last response byte. It
 * runs on one thread, its client connection's {@link EventLoop} ({@link OwningLoop}), from
 * start to end: no locks. {@link Phase} says where the upstream side stands and {@link
 * RequestProgress} how much of the request was read. Each try goes through an {@link
 * UpstreamAttempt}, whose late events die with it; {@link Attempts} keeps them and, through the
 * {@link RetryPolicy}, decides whether a failed attempt ({@link AttemptFailure}) is tried again;
 * {@link #fail} is the one end of a failed exchange and {@link #endExchange} the one end of every
 * exchange.
 *
 * <p>It speaks no protocol itself: the client's side is a {@link ClientStream} and each attempt's
 * upstream side an {@link UpstreamStream}, which frame heads and bodies for their protocols. The
 * request is {@linkplain UpstreamProtocol#prepare prepared} once, while the client's head bytes
 * are readable; body pieces are slices of the buffers they were read into. Each direction's flow
 * control is a {@link Backpressure}.
 */
public final class Exchange {
    private static final int CLIENT_CLOSED_STATUS = 499;

    private final ForwardingServices services;
    /** The configuration the exchange started under, kept to its end whatever a reload changes. */
    private final Generation generation;
    private final ClientStream client;
    private final ForwardedRequest request;
    private final Route route;
    private final UpstreamGroup group;
    private final long startNanos = System.nanoTime();
    /** The client connection's loop, which owns this exchange and its upstream connections. */
    private final OwningLoop loop;
    private final RequestBody body;
    private final RequestRelay sender;
    private final ClientAnswer answer;
    private final Attempts attempts;
    /** How the group's servers are spoken to. */
    private final UpstreamProtocol protocol;

    private Phase phase = Phase.CONNECTING;
    /** After a 101: which directions have ended. */
    private Tunnel tunnel;

    Exchange(ForwardingServices services, Generation generation, ClientStream client, RequestHead head,
             ForwardedRequest request, Route route, Rewrites.Target target) {
        this.services = services;
        this.generation = generation;
        this.client = client;
        this.request = request;
        this.route = route;
        this.group = generation.groupFor(route);
        this.loop = services.owningLoop(client.loop());
        this.body = new RequestBody(head.hasBody(), request.chunked(), client.memory());
        this.attempts = new Attempts(this, group,
                new RetryPolicy(group, HashKeys.of(group.hashKey(), head, request.clientAddress())), body, request, route);
        this.protocol = services.upstreamProtocol(group);
        this.sender = new RequestRelay(client, request, protocol.prepare(head, route, target,
                group.settings().pool().persistentConnections(), request, client.memory()), body,
                generation.stallTimeoutMillis(), group.responseTimeoutMillis(), new Backpressure() {
                    @Override
                    void resume() {
                        if (!phase.isOver()) {
                            client.resumeReads();
                        }
                    }
                });
        this.answer = new ClientAnswer(client, route, request, new Backpressure() {
            @Override
            void resume() {
                UpstreamStream stream = attempts.stream();
                if (!phase.isOver() && stream != null) {
                    stream.resumeReads();
                }
            }
        });
    }

    /** Where the exchange stands. */
    Phase phase() {
        return phase;
    }

    ForwardingServices services() {
        return services;
    }

    ForwardedRequest request() {
        return request;
    }

    OwningLoop loop() {
        return loop;
    }

    /** The client side the exchange answers. */
    ClientStream client() {
        return client;
    }

    Attempts attempts() {
        return attempts;
    }

    UpstreamProtocol protocol() {
        return protocol;
    }

    /** Something of the answer reached the client: no other server may answer instead. */
    boolean answerBegun() {
        return answer.begun();
    }

    /** Picks a server and asks its pool for a connection; the request goes out once one is ready. */
    public void start() {
        assert loop.owned() : Thread.currentThread().getName() + " is not " + loop;
        attempts.start();
    }

    // ------------------------------------------------------------------ the upstream connection

    /** {@code tried} is the attempt waiting for a connection: one handed over now is its to use. */
    boolean connecting(UpstreamAttempt tried) {
        return phase == Phase.CONNECTING && attempts.isCurrent(tried);
    }

    /** The attempt's stream is bound: the request goes out. */
    void onConnected(UpstreamAttempt tried) {
        assert loop.owned() : Thread.currentThread().getName() + " is not " + loop;
        UpstreamStream stream = tried.stream();
        phase = phase.bound(body.complete());
        sender.sendOn(stream);
        if (stream.closedBeforeBound()) {
            onUpstreamClosed(tried);
        }
    }

    /** The attempt in progress is let go for another: the request is to be sent anew. */
    void retrying() {
        if (phase != Phase.CONNECTING) {
            phase = phase.retry();
        }
    }

    void onUpstreamClosed(UpstreamAttempt closed) {
        assert loop.owned() : Thread.currentThread().getName() + " is not " + loop;
        if (phase.isOver()) {
            return;
        }
        if (services.drain().isExpired()) {
            // The stop's grace period ran out and it closes every connection, on both sides of the
            // one transport, in no set order: the exchange is the stop's doing, as when its client's
            // connection closes first (onClientClosed), not a failing upstream's to answer 502 for.
            client.close();
            return;
        }
        Throwable tls = closed.stream().tlsFailure();
        if (tls != null && !phase.responseStarted()) {
            attempts.failed(closed, AttemptFailure.tlsHandshake(closed.server().authority(), tls));
            return;
        }
        if (phase == Phase.TUNNELLING) {
            phase = phase.completed();
            attempts.finish(false);
            endExchange(false);
            return;
        }
        if (!answer.begun() && closed.stream().refused() && attempts.retriedRefused(closed)) {
            return;
        }
        boolean headBegun = !phase.responseStarted() && closed.stream().headBegun();
        if (!answer.begun() && !headBegun && attempts.retriedStale(closed)) {
            return;
        }
        attempts.failed(closed, AttemptFailure.closed(phase.responseStarted(), headBegun));
    }

    /** No progress before the deadline: what that means depends on where the exchange stands ({@link AttemptFailure#deadline}). */
    void onDeadline(UpstreamAttempt timed) {
        assert loop.owned() : Thread.currentThread().getName() + " is not " + loop;
        AttemptFailure failure = AttemptFailure.deadline(phase, sender.paused(), group.responseTimeoutMillis(),
                generation.stallTimeoutMillis());
        if (failure != null) {
            attempts.failed(timed, failure);
        }
    }

    // ------------------------------------------------------------------ request

    /**
     * A piece of the request body from the client (a slice of its read buffer); {@code last}
     * marks the end. Returns false when the client's reads must stop until {@link
     * ClientStream#resumeReads()}: the upstream cannot take more yet.
     */
    public boolean onRequestBody(Buffer piece, boolean last) {
        assert loop.owned() : Thread.currentThread().getName() + " is not " + loop;
        if (phase.isOver()) {
            Pieces.drop(piece);
            return true;
        }
        if (generation.exceedsBodyLimit(body.count(piece))) {
            Pieces.drop(piece);
            fail(ProxyError.BODY_TOO_LARGE, "the limit is " + generation.maxBodySize() + " bytes");
            return true;
        }
        if (last) {
            body.ended();
        }
        if (phase == Phase.CONNECTING) {
            return sender.hold(piece);
        }
        boolean room = sender.send(attempts.stream(), piece, last, phase.responseStarted());
        if (last && !phase.isOver()) {
            phase = phase.requestSent();
        }
        return room;
    }

    /** The request body broke its chunked framing midway. */
    public void onRequestBodyBroken(Violation violation) {
        fail(ProxyError.BROKEN_BODY, violation.text());
    }

    /** After a 101, bytes from the client for the upstream. False: stop reading until there is room. */
    public boolean onClientTunnelBytes(Buffer bytes) {
        assert loop.owned() : Thread.currentThread().getName() + " is not " + loop;
        if (phase != Phase.TUNNELLING) {
            Pieces.drop(bytes);
            return true;
        }
        return sender.relay(attempts.stream(), bytes);
    }

    /** After a 101, the client sends no more but still reads: the upstream's input ends too. */
    public void onClientInputEnded() {
        assert loop.owned() : Thread.currentThread().getName() + " is not " + loop;
        if (phase == Phase.TUNNELLING) {
            tunnel.clientInputEnded(client, attempts.stream());
        }
    }

    // ----------------------------------------------------------------- response

    /** The response timeout keeps running: interim responses do not extend it, or an upstream could hold the exchange for ever. */
    boolean onInterimResponse(UpstreamAttempt from, ResponseHead head) {
        assert loop.owned() : Thread.currentThread().getName() + " is not " + loop;
        return phase.isOver() || phase.responseStarted() || answer.interim(head);
    }

    boolean onResponseHead(UpstreamAttempt from, ResponseHead head, Buffer firstPiece) {
        assert loop.owned() : Thread.currentThread().getName() + " is not " + loop;
        if (phase.isOver() || attempts.retriedOnStatus(from, head)) {
            Pieces.drop(firstPiece);
            return true;
        }
        boolean room = sendHead(head, firstPiece, false);
        if (phase.isOver()) {
            return true;
        }
        from.stream().armDeadline(generation.stallTimeoutMillis());
        if (phase == Phase.TUNNELLING) {
            tunnel = new Tunnel();
            client.switchToTunnel(this);
            return true;
        }
        return room;
    }

    /** The final head to the client (with the first or last piece of its body), and the phase it leads to. */
    private boolean sendHead(ResponseHead head, Buffer piece, boolean last) {
        boolean room = answer.head(head, piece, last, mayKeepClient());
        if (phase.isOver()) {
            // The write found the client gone, and its close ended the exchange meanwhile.
            return room;
        }
        phase = head.status() == 101 ? phase.switched() : phase.headForwarded();
        return room;
    }

    /**
     * The one place keep-alive with the client is decided, for relayed and local answers alike:
     * the request asked for it, the connection may carry more (settings, request count, input not
     * ended), and the proxy is not draining.
     */
    private boolean mayKeepClient() {
        return request.keepAlive() && client.mayKeepAlive() && !services.drain().isDraining();
    }

    boolean onResponseBody(Buffer piece) {
        assert loop.owned() : Thread.currentThread().getName() + " is not " + loop;
        if (phase.isOver()) {
            Pieces.drop(piece);
            return true;
        }
        // Progress: the next piece must come within idle-timeout, also while the client is too
        // slow to take this one (upstream reads stay paused and the deadline runs out).
        attempts.stream().armDeadline(generation.stallTimeoutMillis());
        return answer.body(piece, phase == Phase.TUNNELLING);
    }

    /** After a 101, the upstream sends no more but still reads: the client's input ends too. */
    void onTunnelInputEnded(UpstreamAttempt from) {
        assert loop.owned() : Thread.currentThread().getName() + " is not " + loop;
        if (phase == Phase.TUNNELLING) {
            tunnel.upstreamInputEnded(from.stream(), client);
        }
    }

    /** The response's trailers: they leave with its end, which follows at once. */
    void onResponseTrailers(io.kodiak.http.Trailers trailers) {
        assert loop.owned() : Thread.currentThread().getName() + " is not " + loop;
        if (!phase.isOver()) {
            answer.trailers(trailers);
        }
    }

    /** The response ends: its last bytes and the exchange's end are one step. */
    void onResponseEnd(UpstreamAttempt from, ResponseHead head, Buffer lastPiece, boolean reusable) {
        assert loop.owned() : Thread.currentThread().getName() + " is not " + loop;
        if (phase.isOver() || head != null && attempts.retriedOnStatus(from, head)) {
            Pieces.drop(lastPiece);
            return;
        }
        // Head, last piece and the body's end leave in one write.
        if (head != null) {
            sendHead(head, lastPiece, true);
        } else {
            answer.end(lastPiece);
        }
        if (phase.isOver()) {
            // The client's close, found by the write, ended the exchange meanwhile.
            return;
        }
        phase = phase.completed();
        attempts.finish(reusable && body.complete() && group.settings().pool().persistentConnections());
        endExchange(answer.keepAlive());
    }

    // ----------------------------------------------------------------- the end

    /**
     * The single failure path: the client gets Kodiak's answer if nothing of the upstream's
     * response was written yet, otherwise its connection is closed (a half-sent response cannot
     * be corrected). The upstream connection is never reused after an error.
     */
    void fail(ProxyError error, String detail) {
        assert loop.owned() : Thread.currentThread().getName() + " is not " + loop;
        if (phase.isOver()) {
            return;
        }
        boolean local = !phase.responseStarted();
        phase = phase.failed();
        // A client still to send its body after "Expect: 100-continue" may never send it: its
        // next request would be read as this body, so the connection closes.
        boolean keep = local && !error.closeClient && mayKeepClient() && !sender.bodyMayNeverCome();
        // The answer and the WARN line name the same id.
        long requestNumber = request.idNumber();
        // A client's own error names the rule it broke; an upstream's failure keeps its detail
        // (addresses, the system's words) for the log.
        String shown = error.status < 500 ? detail : null;
        if (local) {
            answer.answeredLocally(error.status, request.isHead() ? 0 : error.answerBody(shown, requestNumber).length);
        }
        // Counted before the answer leaves: a client that reads it and then asks /metrics finds it.
        services.onError(error);
        if (local) {
            client.sendLocal(error, shown, requestNumber, keep);
        }
        attempts.finish(false);
        Recorder.warnFailed(request, route, attempts.serversTried(), error, requestNumber, detail);
        if (request.span() != null) {
            request.span().failed(error.cause, detail);
        }
        endExchange(keep);
    }

    /**
     * The client connection closed: stop everything, and never pool the upstream connection
     * mid-exchange. Closed by the client (499, as nginx logs it), or by the stop once its grace
     * period ran out ({@link ProxyError#STOPPED}: the answer's status if it had begun, else 503).
     */
    public void onClientClosed() {
        if (!loop.here()) {
            loop.post(this::onClientClosed);
            return;
        }
        if (phase.isOver()) {
            return;
        }
        boolean stopped = services.drain().isExpired();
        boolean tunnel = phase == Phase.TUNNELLING;
        if (!tunnel && stopped && !phase.responseStarted()) {
            answer.answeredLocally(ProxyError.STOPPED.status);
        } else if (!tunnel && !stopped) {
            answer.answeredLocally(CLIENT_CLOSED_STATUS);
        }
        phase = tunnel ? phase.completed() : phase.failed();
        attempts.finish(false);
        if (!tunnel) {
            services.onError(stopped ? ProxyError.STOPPED : null);
            if (stopped) {
                Recorder.warnFailed(request, route, attempts.serversTried(), ProxyError.STOPPED, request.idNumber(),
                        ProxyError.STOPPED.text);
                if (request.span() != null) {
                    request.span().failed(ProxyError.STOPPED.cause, ProxyError.STOPPED.text);
                }
            }
        }
        endExchange(false);
    }

    /** Every exchange ends here once, whatever ended it. */
    private void endExchange(boolean keepAlive) {
        client.exchangeEnded(this, keepAlive);
        // Recorded before the drain counts the exchange out: a stop waits for it, so the last
        // exchanges' access-log lines and metrics are never lost to a stop.
        long now = System.nanoTime();
        long firstByte = answer.firstByteNanos();
        long sentNanos = sender.sentNanos();
        long upstreamNanos = sentNanos < 0 ? -1 : (firstByte < 0 ? now : firstByte) - sentNanos;
        services.recorder().exchange(route, attempts.serversTried(), answer.status(), body.bytes(), answer.bytes(),
                upstreamNanos, now - startNanos, request, generation);
        if (request.span() != null) {
            // Ended on the loop; the SDK's processor queues it without waiting (or drops it when full).
            request.span().end(answer.status());
        }
        sender.release();
        services.drain().exchangeEnded();
    }
}
