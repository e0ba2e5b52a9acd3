package io.kodiak.client;

import io.kodiak.exchange.Admission;
import io.kodiak.exchange.Exchange;
import io.kodiak.exchange.ProxyError;
import io.kodiak.h1.HalfCloses;
import io.kodiak.h2.Http2Connection;
import io.kodiak.h2.Http2Observer;
import io.kodiak.http.HttpViolationException;
import io.kodiak.http.RequestHead;
import io.kodiak.http.Violation;
import io.kodiak.loop.EventLoop;
import io.kodiak.transport.Deadline;
import io.kodiak.transport.Pieces;
import io.kodiak.transport.ReadGate;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static io.kodiak.client.ClientState.BODY;
import static io.kodiak.client.ClientState.CLOSING;
import static io.kodiak.client.ClientState.DISCARD;
import static io.kodiak.client.ClientState.H2;
import static io.kodiak.client.ClientState.HEAD;
import static io.kodiak.client.ClientState.TUNNEL;
import static io.kodiak.client.ClientState.WAIT;

/**
 * One HTTP/1.1 client connection: its codec ({@link RequestDecoder}), where it stands ({@link
 * ClientState}), the exchange it serves, the read it holds back while that exchange runs ({@link
 * ReadGate}), and whether the client still sends ({@link ClientInput}). Requests are served one at a time, in order: the
 * bytes of a pipelined request wait, unread, until the response before it is out.
 */
final class ClientConnection {
    private static final Logger LOG = LoggerFactory.getLogger(ClientConnection.class);

    private final Connection<?> connection;
    private final ClientSettings settings;
    private final Admission admission;
    private final IdleClock idleClock;
    private final RequestDecoder decoder;
    private final Http1ClientStream stream;
    private final ReadGate reads = new ReadGate();
    private final ClientInput input = new ClientInput();
    /** Read by the timer thread; see {@link IdleClock}. */
    private final Deadline idleDeadline = new Deadline();

    /** Found at the first event that needs it. */
    private EventLoop loop;
    private ClientState state = HEAD;
    private Exchange current;
    private int requests;
    /**
     * An exchange whose request has a body, not asked for its upstream connection until the body
     * bytes that came with the head were taken: then the head and those bytes leave in one write.
     * Only the reading thread touches it.
     */
    private Exchange unstarted;
    /** Once the client opened with the HTTP/2 preface. */
    private Http2Connection h2;
    private final Http2Observer http2Observer;

    ClientConnection(Connection<?> connection, ClientSettings settings, Admission admission, IdleClock idleClock,
                     Http2Observer http2Observer) {
        this.http2Observer = http2Observer;
        this.connection = connection;
        this.settings = settings;
        this.admission = admission;
        this.idleClock = idleClock;
        this.decoder = new RequestDecoder(settings.maxHeaderSize());
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
        if (settings.tls() && input.closeNotified(connection) && state != CLOSING) {
            closeNow();
        }
        if (action != ctx.getSuspendAction()) {
            // After a suspend, the resumed read, from a state this one no longer sees, ends with
            // this check instead.
            closeIfNothingLeft();
        }
        return action;
    }

    /**
     * The client will send nothing more ({@link ClientInput}). Idle, or with a request cut short
     * (its head or body incomplete), the connection closes now, and an exchange whose request body
     * was cut short ends as when the client closes.
     */
    void onInputEnded() {
        input.end();
        closeIfNothingLeft();
    }

    /**
     * After the client's input ended: closes unless a request is still to be answered (WAIT) or
     * read (bytes held back while an exchange runs).
     */
    private void closeIfNothingLeft() {
        if (!input.ended() || reads.isClosed() || state == WAIT || state == CLOSING) {
            return;
        }
        if (state == TUNNEL) {
            // A tunnel's half-close goes on to the upstream, which may still answer.
            current.onClientInputEnded();
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
            if (state == CLOSING || !buffer.hasRemaining()) {
                return ctx.getStopAction();
            }
            NextAction stop = switch (state) {
                case HEAD -> readHead(ctx, buffer);
                case BODY -> readBody(ctx, buffer, current);
                case DISCARD -> discard(buffer);
                case WAIT -> holdUntilAnswered(ctx);
                case TUNNEL -> relay(ctx, buffer, current);
                case H2 -> h2.onRead(ctx);
                case CLOSING -> ctx.getStopAction();
            };
            if (stop != null) {
                return stop;
            }
        }
    }

    private NextAction readHead(FilterChainContext ctx, Buffer buffer) {
        if (requests == 0 && settings.http2() != null && !decoder.partial() && RequestDecoder.opensHttp2(buffer)) {
            h2 = new Http2Connection(connection, settings.http2(), admission, new ClientPeer(this, stream), http2Observer);
            state = state.to(H2);
            return h2.onRead(ctx);
        }
        long start = System.nanoTime();
        try {
            if (!decoder.readHead(buffer)) {
                return ctx.getStopAction();
            }
        } catch (HttpViolationException e) {
            Violation violation = e.violation();
            refuse(ProxyError.of(violation), ProxyError.detailOf(violation), start);
            decoder.forgetHead();
            return ctx.getStopAction();
        }
        try {
            return actOnHead(ctx, decoder.head(), start);
        } finally {
            // Everything that needs the head's bytes has copied what it keeps.
            decoder.forgetHead();
        }
    }

    private NextAction actOnHead(FilterChainContext ctx, RequestHead head, long start) {
        idleClock.stop(this);
        requests++;
        Admission.Decision decision = admission.decide(head, stream);
        if (decision.refusal() != null) {
            admission.recordRefusal(stream, head, decision, decision.refusal(), start, Admission.answerBytes(head, decision));
            answer(decision, head);
            return null;
        }
        decoder.expectBody();
        stream.start(head);
        Exchange exchange = admission.begin(stream, head, decision);
        if (state == CLOSING) {
            // Closed while the head was acted on (a refusal, the client's close_notify).
            exchange.onClientClosed();
            // The head's arrival stopped the idle clock; a closing connection stays bounded by it.
            idleClock.start(this);
            return ctx.getStopAction();
        }
        current = exchange;
        state = state.to(decoder.bodyDone() ? WAIT : BODY);
        if (decoder.bodyDone()) {
            exchange.start();
        } else {
            unstarted = exchange;
        }
        return null;
    }

    private NextAction readBody(FilterChainContext ctx, Buffer buffer, Exchange exchange) {
        int n;
        try {
            n = decoder.nextBody(buffer);
        } catch (HttpViolationException e) {
            // The framing can no longer be trusted: nothing more is read from this connection,
            // also when the exchange already ended (its answer then said keep-alive).
            state = state.to(CLOSING);
            exchange.onRequestBodyBroken(e.violation());
            closeNow();
            return ctx.getStopAction();
        }
        boolean last = decoder.bodyDone();
        boolean go = true;
        if (n > 0 || last) {
            go = exchange.onRequestBody(n > 0 ? Pieces.take(ctx, buffer, n) : org.glassfish.grizzly.memory.Buffers.EMPTY_BUFFER, last);
        }
        if (last) {
            if (state == BODY) {
                state = state.to(WAIT);
            } else if (state == DISCARD) {
                // The exchange ended while its last body bytes were on their way.
                state = state.to(HEAD);
            }
        }
        return go ? null : pause(ctx, exchange);
    }

    private NextAction discard(Buffer buffer) {
        if (!decoder.discard(buffer)) {
            closeNow();
        } else if (decoder.bodyDone()) {
            state = state.to(HEAD);
            idleClock.start(this);
        }
        return null;
    }

    /** The next request arrived while the previous one's exchange runs: it waits, unread, for the answer. */
    private NextAction holdUntilAnswered(FilterChainContext ctx) {
        // Never suspend with an exchange not yet started: nothing would ever resume the read.
        startPending();
        if (state != WAIT) {
            return null;
        }
        return reads.hold(ctx);
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
        if (current != exchange || state != BODY && state != TUNNEL) {
            reads.reset();
            return null;
        }
        return reads.close(ctx);
    }

    // ------------------------------------------------------ answering locally

    /** A head that cannot be accepted: the precise status, and the connection closes. */
    private void refuse(ProxyError error, String detail, long start) {
        admission.recordRefusal(stream, null, null, error, start, error.answerBody(detail, 0).length);
        if (LOG.isDebugEnabled()) {
            LOG.debug("refused a request from {}: {} {}: {}", stream.address(), error.status, error.text, detail);
        }
        stream.refuse(error, detail);
        closeNow();
    }

    /** Kodiak's answer to a request it read but does not forward (no route, draining, too large...). */
    private void answer(Admission.Decision decision, RequestHead head) {
        ProxyError error = decision.refusal();
        // A body still to come is skipped to keep the connection, but not one the client may never
        // send (it waits for a 100 Continue that will not come, and its next request would be read
        // as this body), nor one larger than is worth reading.
        boolean keep = !error.closeClient && head.wantsKeepAlive() && mayKeepAlive()
                && !(head.hasBody() && (head.expectsContinue() || head.contentLength() > RequestDecoder.MAX_BODY_TO_DISCARD));
        boolean skipBody = keep && head.hasBody();
        stream.answer(decision, head, keep);
        if (!keep) {
            closeNow();
            return;
        }
        if (skipBody) {
            decoder.expectBody();
            decoder.startDiscard();
            state = state.to(DISCARD);
        }
        idleClock.start(this);
    }

    // ------------------------------------------------------ the exchange's side
    void resumeReads() {
        reads.open();
    }

    boolean mayKeepAlive() {
        // Once the client's input ended, only a request it already sent (held) keeps the connection.
        return settings.persistentConnections() && (!input.ended() || reads.isClosed())
                && (settings.maxRequestsPerConnection() < 0 || requests < settings.maxRequestsPerConnection());
    }

    void switchToTunnel(Exchange exchange) {
        if (current != exchange || state == CLOSING) {
            return;
        }
        FilterChainContext ctx = reads.take();
        // The client's input ended before the 101, with nothing of it left to relay: a tunnel
        // ends when either side's input does (the upstream is not told of a half-close).
        boolean ended = input.ended() && ctx == null;
        state = state.to(ended ? CLOSING : TUNNEL);
        if (ended) {
            closeNow();
        } else if (ctx != null) {
            // Bytes the client sent ahead of the 101 belong to the new protocol.
            ctx.resume();
        }
    }

    void exchangeEnded(Exchange exchange, boolean keepAlive) {
        if (current != exchange) {
            return;
        }
        current = null;
        reads.reset();
        if (!keepAlive || state == CLOSING || state == TUNNEL || input.ended() && !reads.isClosed()) {
            reads.discard();
            closeNow();
            return;
        }
        if (state == BODY) {
            // Answered before the client finished sending: the rest is read and dropped, if it
            // all comes within idle-timeout (up to 1 MiB; more, and the connection closes).
            state = state.to(DISCARD);
            decoder.startDiscard();
        } else {
            state = state.to(HEAD);
        }
        idleClock.start(this);
        FilterChainContext ctx = reads.take();
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
        state = state.to(CLOSING);
        connection.closeSilently();
        idleClock.start(this);
    }

    void onClosed() {
        if (!onLoop(this::onClosed)) {
            return;
        }
        idleDeadline.close();
        state = state.to(CLOSING);
        if (h2 != null) {
            h2.onClosed();
        }
        // The codec state is left as it is: the close may come in the middle of a read (a close
        // the read itself caused), and nothing reads it after the close.
        reads.discard();
        if (current != null) {
            current.onClientClosed();
        }
        // After the exchange heard of it: a connection it gives back now is closed, not kept.
        stream.closed();
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
        if (state == H2) {
            if (h2.idleTimedOut()) {
                linger();
            }
            return;
        }
        boolean closing = state == CLOSING;
        if (!closing && (current != null || state != HEAD && state != DISCARD)) {
            return;
        }
        state = state.to(CLOSING);
        if (closing) {
            connection.terminateSilently();
        } else {
            closeNow();
        }
    }

    /** The loop that owns this connection; found at the first event that needs it (registration follows the accept). */
    EventLoop loop() {
        if (loop == null) {
            loop = admission.loops().of(connection);
        }
        return loop;
    }

    /**
     * True on the connection's loop: the caller goes on. Elsewhere (the idle timer, a close asked
     * by another thread) posts {@code again} to the loop and returns false. Past the stop's grace
     * period the loops are being shut down: the calling thread ends what is left.
     */
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

    // ------------------------------------------------------------- for HTTP/2 (ClientPeer)

    /** Something moved on the HTTP/2 connection: the idle clock starts again from now. */
    void activity() {
        if (state != CLOSING) {
            idleClock.start(this);
        }
    }

    /** Closes once what was written is out (nothing more once closing). */
    void close() {
        if (state != CLOSING) {
            closeNow();
        }
    }

    /** Ends the output after what was written and reads on, dropping, until the client closes or idle-timeout passes. */
    void linger() {
        if (state == CLOSING) {
            return;
        }
        if (HalfCloses.possible(connection)) {
            HalfCloses.shutdownOutput(connection);
            // Bounded: a client that neither sends nor closes is closed after idle-timeout.
            idleClock.start(this);
        } else {
            closeNow();
        }
    }
}
