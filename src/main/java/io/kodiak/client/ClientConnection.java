package io.kodiak.client;

import io.kodiak.exchange.Admission;
import io.kodiak.exchange.Exchange;
import io.kodiak.h1.LocalAnswer;
import io.kodiak.exchange.ProxyError;
import io.kodiak.http.BodyReader;
import io.kodiak.http.EmptyLines;
import io.kodiak.http.HeadReader;
import io.kodiak.http.HeadScanner;
import io.kodiak.http.HttpViolationException;
import io.kodiak.http.RequestHead;
import io.kodiak.http.Violation;
import io.kodiak.loop.EventLoop;
import io.kodiak.transport.Deadline;
import io.kodiak.transport.Pieces;
import io.kodiak.transport.PooledBuffers;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;
import org.glassfish.grizzly.ssl.SSLUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.net.ssl.SSLEngine;

/**
 * One client connection: its codec state (a {@link HeadReader}, the {@link RequestHead} it
 * fills, a {@link BodyReader}), where it stands ({@link State}), the exchange it serves, and the
 * read it holds back while that exchange runs. Requests are served one at a time, in order: the
 * bytes of a pipelined request wait, unread, until the response before it is out.
 */
final class ClientConnection {
    private static final Logger LOG = LoggerFactory.getLogger(ClientConnection.class);
    /** Beyond this much unread request body after an early answer, closing is cheaper than reading it. */
    private static final long MAX_BODY_TO_DISCARD = 1024 * 1024;

    /**
     * <pre>
     *   HEAD --head read--> BODY (a body follows) | WAIT (none) | CLOSING (refused, closes) | DISCARD (refused, body skipped)
     *   BODY --body read--> WAIT        BODY --exchange ended first--> DISCARD | CLOSING
     *   WAIT --exchange ended--> HEAD | CLOSING      WAIT --101--> TUNNEL --either side closed--> CLOSING
     *   DISCARD --body read--> HEAD
     *   HEAD | BODY | DISCARD --client's input ended, nothing held--> CLOSING
     *   (in TUNNEL the input's end is passed on to the upstream, and the tunnel goes on the other way)
     *   (in WAIT, or with bytes held, the input's end closes the connection after the last answer;
     *   a 101 that comes after it closes the connection instead of opening a tunnel)
     * </pre>
     */
    enum State {
        /** Reading a request head (or waiting for one: the connection is idle). */
        HEAD,
        /** Reading the current request's body into its exchange. */
        BODY,
        /** Reading and dropping what is left of the body of a request already answered. */
        DISCARD,
        /** The request was read; its exchange runs. Bytes that arrive now are the next request's: held. */
        WAIT,
        /** After a 101: bytes go to the exchange as they come. */
        TUNNEL,
        /** Closing once what was written is out; nothing read is handled any more. */
        CLOSING
    }

    private final Connection<?> connection;
    private final ClientSettings settings;
    private final Admission admission;
    private final IdleClock idleClock;
    private final HeadReader heads;
    private final RequestHead head = new RequestHead();
    private final BodyReader body;
    private final Http1ClientStream stream;
    /** Read by the timer thread; see {@link IdleClock}. */
    private final Deadline idleDeadline = new Deadline();
    /** Empty lines between requests, skipped wherever the reads split them. */
    private final EmptyLines emptyLines = new EmptyLines();

    /** Found at the first event that needs it. */
    private EventLoop loop;
    private State state = State.HEAD;
    private Exchange current;
    private FilterChainContext held;
    private boolean resumedEarly;
    private int requests;
    private long discardLeft;
    /**
     * The client sends no more: it shut down its sending side (a TCP half-close with
     * client-half-close = "answer", a TLS 1.3 close_notify). What it sent is still served; the
     * connection closes after the last answer.
     */
    private boolean inputEnded;
    /**
     * An exchange whose request has a body, not asked for its upstream connection until the body
     * bytes that came with the head were taken: then the head and those bytes leave in one write.
     * Only the reading thread touches it.
     */
    private Exchange unstarted;

    ClientConnection(Connection<?> connection, ClientSettings settings, Admission admission, IdleClock idleClock) {
        this.connection = connection;
        this.settings = settings;
        this.admission = admission;
        this.idleClock = idleClock;
        this.heads = new HeadReader(HeadScanner.Start.REQUEST_LINE, settings.maxHeaderSize(), Violation.REQUEST_LINE_TOO_LONG);
        this.body = new BodyReader(settings.maxHeaderSize());
        this.stream = new Http1ClientStream(this, connection, settings, admission.writeQueues());
    }

    // --------------------------------------------------------------- reading

    /** Everything read from the client, in order. */
    NextAction onRead(FilterChainContext ctx) {
        NextAction action = read(ctx);
        if (action != ctx.getSuspendAction()) {
            // Not after a suspend: the read was held, so what was pending was started before it,
            // and the held read may have been resumed already (a connection ready at once).
            startPending();
        }
        if (settings.tls()) {
            noticeCloseNotify();
        }
        if (action != ctx.getSuspendAction()) {
            // After a suspend, the resumed read, from a state this one no longer sees, ends with
            // this check instead.
            closeIfNothingLeft();
        }
        return action;
    }

    /**
     * The client will send nothing more: it shut down the sending side of its TCP connection
     * ({@link io.kodiak.transport.HalfCloseTransportFilter}, on a listener with
     * client-half-close = "answer"; a TLS close_notify is {@link #noticeCloseNotify}):
     * a request it sent whole is still answered, as the service behind the proxy would answer it
     * (and HAProxy does; nginx drops it, 499); then the connection closes. Idle, or with a request
     * cut short (its head or body incomplete), the connection closes now, and an exchange whose
     * request body was cut short ends as when the client closes.
     */
    void onInputEnded() {
        inputEnded = true;
        closeIfNothingLeft();
    }

    /**
     * TLS: the client's close_notify ends its input. TLS 1.3 lets a client close only its sending
     * side and the engine can still send, so it is a half-close; the end of the TCP stream that
     * usually follows (the JDK's shutdownOutput sends both, and so does a client that leaves) is
     * then read as client-half-close says. With TLS 1.2, and with Conscrypt's engine whatever the
     * version, the engine closes both ways and can send nothing more: the client is gone, and its
     * exchange ends now instead of when its answer fails to go out. (The engine's lock, taken per
     * read here, is uncontended: the connection's writes run on the same loop.)
     */
    private void noticeCloseNotify() {
        SSLEngine engine = SSLUtils.getSSLEngine(connection);
        if (engine == null || !engine.isInboundDone()) {
            return;
        }
        boolean gone = engine.isOutboundDone();
        inputEnded = true;
        if (!gone || state == State.CLOSING) {
            return;
        }
        state = State.CLOSING;
        closeNow();
    }

    /**
     * After the client's input ended: closes unless a request is still to be answered (WAIT) or
     * read (bytes held back while an exchange runs).
     */
    private void closeIfNothingLeft() {
        if (!inputEnded) {
            return;
        }
        Exchange tunnel;
        if (held != null || state == State.WAIT || state == State.CLOSING) {
            return;
        }
        tunnel = state == State.TUNNEL ? current : null;
        if (tunnel == null) {
            state = State.CLOSING;
        }
        if (tunnel != null) {
            // A tunnel's half-close goes on to the upstream, which may still answer.
            tunnel.onClientInputEnded();
            return;
        }
        closeNow();
    }

    /** Asks the pool for the connection of an exchange whose first body bytes have been taken. */
    private void startPending() {
        Exchange exchange = unstarted;
        if (exchange != null) {
            unstarted = null;
            exchange.start();
        }
    }

    private NextAction read(FilterChainContext ctx) {
        while (true) {
            // Taken anew each time: a piece that was the whole buffer replaced it with an empty one.
            Buffer buffer = ctx.getMessage();
            State now;
            Exchange exchange;
            now = state;
            exchange = current;
            if (now == State.CLOSING || !buffer.hasRemaining()) {
                return ctx.getStopAction();
            }
            NextAction stop = switch (now) {
                case HEAD -> readHead(ctx, buffer);
                case BODY -> readBody(ctx, buffer, exchange);
                case DISCARD -> discard(buffer);
                case WAIT -> holdUntilAnswered(ctx);
                case TUNNEL -> relay(ctx, buffer, exchange);
                case CLOSING -> ctx.getStopAction();
            };
            if (stop != null) {
                return stop;
            }
        }
    }

    private NextAction readHead(FilterChainContext ctx, Buffer buffer) {
        long start = System.nanoTime();
        try {
            if (!heads.isPartial() && !emptyLines.skip(buffer)) {
                return ctx.getStopAction();
            }
            if (!heads.read(buffer)) {
                return ctx.getStopAction();
            }
            head.parse(heads);
        } catch (HttpViolationException e) {
            Violation violation = e.violation();
            refuse(ProxyError.of(violation), violation.text(), null, start);
            forgetHead();
            return ctx.getStopAction();
        }
        try {
            return actOnHead(ctx, start);
        } finally {
            // Everything that needs the head's bytes has copied what it keeps.
            forgetHead();
        }
    }

    /** Lets go of the read buffer the last head lies in (HeadReader.clear says why). */
    private void forgetHead() {
        heads.clear();
        head.forgetBytes();
    }

    private NextAction actOnHead(FilterChainContext ctx, long start) {
        idleClock.stop(this);
        requests++;
        Admission.Decision decision = admission.decide(head, stream);
        if (decision.refusal() != null) {
            admission.recordRefusal(stream, head, decision, decision.refusal(), start);
            answer(decision, head.method() == io.kodiak.http.RequestMethod.HEAD);
            return null;
        }
        startBody();
        stream.start(head);
        Exchange exchange = admission.begin(stream, head, decision);
        boolean closed;
        // Closed while the head was acted on (a refusal, the client's close_notify)?
        closed = state == State.CLOSING;
        if (!closed) {
            current = exchange;
            state = body.isDone() ? State.WAIT : State.BODY;
        }
        if (closed) {
            exchange.onClientClosed();
            // The head's arrival stopped the idle clock; a closing connection stays bounded by it.
            idleClock.start(this);
            return ctx.getStopAction();
        }
        if (body.isDone()) {
            exchange.start();
        } else {
            unstarted = exchange;
        }
        return null;
    }


    private void startBody() {
        if (head.isChunked()) {
            body.expectChunked();
        } else {
            body.expectLength(Math.max(0, head.contentLength()));
        }
    }

    private NextAction readBody(FilterChainContext ctx, Buffer buffer, Exchange exchange) {
        int n;
        try {
            n = body.next(buffer);
        } catch (HttpViolationException e) {
            // The framing can no longer be trusted: nothing more is read from this connection,
            // also when the exchange already ended (its answer then said keep-alive).
            state = State.CLOSING;
            exchange.onRequestBodyBroken(e.violation());
            closeNow();
            return ctx.getStopAction();
        }
        boolean last = body.isDone();
        boolean go = true;
        if (n > 0 || last) {
            go = exchange.onRequestBody(n > 0 ? Pieces.take(ctx, buffer, n) : org.glassfish.grizzly.memory.Buffers.EMPTY_BUFFER, last);
        }
        if (last) {
            if (state == State.BODY) {
                state = State.WAIT;
            } else if (state == State.DISCARD) {
                // The exchange ended while its last body bytes were on their way.
                state = State.HEAD;
            }
        }
        return go ? null : pause(ctx, exchange);
    }

    private NextAction discard(Buffer buffer) {
        int n;
        try {
            n = body.next(buffer);
        } catch (HttpViolationException e) {
            closeNow();
            return null;
        }
        buffer.position(buffer.position() + Math.max(0, n));
        boolean done = body.isDone();
        boolean close;
        discardLeft -= Math.max(0, n);
        close = discardLeft < 0;
        if (done && !close) {
            state = State.HEAD;
        }
        if (close) {
            closeNow();
        } else if (done) {
            idleClock.start(this);
        }
        return null;
    }

    /** The next request arrived while the previous one's exchange runs: it waits, unread, for the answer. */
    private NextAction holdUntilAnswered(FilterChainContext ctx) {
        // Never suspend with an exchange not yet started: nothing would ever resume the read.
        startPending();
        if (state != State.WAIT) {
            return null;
        }
        return hold(ctx);
    }

    private NextAction relay(FilterChainContext ctx, Buffer buffer, Exchange exchange) {
        boolean go = exchange.onClientTunnelBytes(Pieces.take(ctx, buffer, buffer.remaining()));
        return go ? null : pause(ctx, exchange);
    }

    /**
     * The exchange asked to stop reading (its upstream has no room); null when it already asked
     * to go on, or ended meanwhile (then nobody would resume a held read: the state decides anew).
     */
    private NextAction pause(FilterChainContext ctx, Exchange exchange) {
        // Started before the read is suspended: a connection ready at once resumes reads through
        // resumeReads(), which then finds the pause not yet taken.
        startPending();
        if (resumedEarly || current != exchange || state != State.BODY && state != State.TUNNEL) {
            resumedEarly = false;
            return null;
        }
        return hold(ctx);
    }

    /** Suspends the read, keeping the unread bytes as the context's message. */
    private NextAction hold(FilterChainContext ctx) {
        NextAction suspend = ctx.getSuspendAction();
        ctx.suspend();
        held = ctx;
        return suspend;
    }

    // ------------------------------------------------------ answering locally

    /** A head that cannot be accepted: the precise status, and the connection closes. */
    private void refuse(ProxyError error, String detail, RequestHead parsed, long start) {
        state = State.CLOSING;
        admission.recordRefusal(stream, parsed, null, error, start);
        if (LOG.isDebugEnabled()) {
            LOG.debug("refused a request from {}: {} {}: {}", stream.address(), error.status, error.text, detail);
        }
        connection.write(LocalAnswer.of(error, detail, false, LocalAnswer.Persistence.CLOSE, 0, 0,
                connection.getMemoryManager()));
        closeNow();
    }

    /** Kodiak's answer to a request it read but does not forward (no route, draining, too large...). */
    private void answer(Admission.Decision decision, boolean headRequest) {
        ProxyError error = decision.refusal();
        // A body still to come is skipped to keep the connection, but not one the client may never
        // send (it waits for a 100 Continue that will not come, and its next request would be read
        // as this body), nor one larger than is worth reading.
        boolean keep = !error.closeClient && head.wantsKeepAlive() && mayKeepAlive()
                && !(head.hasBody() && (head.expectsContinue() || head.contentLength() > MAX_BODY_TO_DISCARD));
        boolean skipBody = keep && head.hasBody();
        admission.writeQueues().write(connection, LocalAnswer.of(error, null, headRequest,
                keep ? (head.isHttp11() ? LocalAnswer.Persistence.NOTHING : LocalAnswer.Persistence.KEEP_ALIVE)
                        : LocalAnswer.Persistence.CLOSE, decision.requestNumberFor5xx(), decision.retryAfterSeconds(),
                connection.getMemoryManager()));
        if (!keep) {
            state = State.CLOSING;
            closeNow();
            return;
        }
        if (skipBody) {
            startBody();
            state = State.DISCARD;
            discardLeft = MAX_BODY_TO_DISCARD;
        }
        idleClock.start(this);
    }

    // ------------------------------------------------------ the exchange's side
    void resumeReads() {
        FilterChainContext ctx;
        ctx = held;
        held = null;
        if (ctx == null) {
            resumedEarly = true;
            return;
        }
        ctx.resume();
    }

    boolean mayKeepAlive() {
        // Once the client's input ended, only a request it already sent (held) keeps the connection.
        return settings.persistentConnections() && (!inputEnded || held != null)
                && (settings.maxRequestsPerConnection() < 0 || requests < settings.maxRequestsPerConnection());
    }

    void switchToTunnel(Exchange exchange) {
        FilterChainContext ctx;
        boolean ended;
        if (current != exchange || state == State.CLOSING) {
            return;
        }
        ctx = held;
        held = null;
        // The client's input ended before the 101, with nothing of it left to relay: a tunnel
        // ends when either side's input does (the upstream is not told of a half-close).
        ended = inputEnded && ctx == null;
        state = ended ? State.CLOSING : State.TUNNEL;
        if (ended) {
            closeNow();
        } else if (ctx != null) {
            // Bytes the client sent ahead of the 101 belong to the new protocol.
            ctx.resume();
        }
    }

    void exchangeEnded(Exchange exchange, boolean keepAlive) {
        FilterChainContext ctx;
        boolean close;
        boolean idle = false;
        if (current != exchange) {
            return;
        }
        current = null;
        resumedEarly = false;
        close = !keepAlive || state == State.CLOSING || state == State.TUNNEL || inputEnded && held == null;
        if (close) {
            state = State.CLOSING;
        } else if (state == State.BODY) {
            // Answered before the client finished sending: the rest is read and dropped, if it
            // all comes within idle-timeout (up to 1 MiB; more, and the connection closes).
            state = State.DISCARD;
            discardLeft = MAX_BODY_TO_DISCARD;
            idle = true;
        } else {
            state = State.HEAD;
            idle = true;
        }
        ctx = held;
        held = null;
        if (close) {
            if (ctx != null) {
                PooledBuffers.dropHeld(ctx);
            }
            closeNow();
            return;
        }
        if (idle) {
            idleClock.start(this);
        }
        if (ctx != null) {
            // A pipelined request (or body bytes held by back-pressure) goes on now.
            ctx.resume();
        }
    }

    // ------------------------------------------------------------- lifecycle

    /**
     * Closes once what was written is out, but waits for a client that does not read its last
     * bytes only idle-timeout long: Grizzly's graceful close has no bound of its own.
     */
    private void closeNow() {
        connection.closeSilently();
        idleClock.start(this);
    }

    void onClosed() {
        if (!onLoop(this::onClosed)) {
            return;
        }
        idleDeadline.close();
        Exchange exchange;
        FilterChainContext ctx;
        state = State.CLOSING;
        exchange = current;
        ctx = held;
        held = null;
        // The codec state is left as it is: the close may come in the middle of a read (a close
        // the read itself caused), and nothing reads it after the close.
        if (ctx != null) {
            PooledBuffers.dropHeld(ctx);
        }
        if (exchange != null) {
            exchange.onClientClosed();
        }
    }

    /**
     * Idle too long: waiting for (the rest of) a head, or dropping what is left of an answered
     * request's body (closed gracefully); or closing, with a client that does not take its last
     * bytes (closed at once).
     */
    void idleTimedOut() {
        if (!onLoop(this::idleTimedOut)) {
            return;
        }
        boolean closing;
        closing = state == State.CLOSING;
        if (!closing && (current != null || state != State.HEAD && state != State.DISCARD)) {
            return;
        }
        state = State.CLOSING;
        if (closing) {
            connection.terminateSilently();
        } else {
            closeNow();
        }
    }

    /**
     * True on the connection's loop: the caller goes on. Elsewhere (the idle timer, a close asked
     * by another thread) posts {@code again} to the loop and returns false. Past the stop's grace
     * period the loops are being shut down: the calling thread ends what is left.
     */
    /** The loop that owns this connection; found at the first event that needs it (registration follows the accept). */
    EventLoop loop() {
        if (loop == null) {
            loop = admission.loops().of(connection);
        }
        return loop;
    }

    private boolean onLoop(Runnable again) {
        EventLoop loop = loop();
        if (loop == null || loop.inLoop() || admission.drainExpired()) {
            return true;
        }
        loop.post(again);
        return false;
    }

    long idleTimeoutMillis() {
        return settings.idleTimeoutMillis();
    }

    Deadline idleDeadline() {
        return idleDeadline;
    }

}
