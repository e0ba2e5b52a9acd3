package io.kodiak.upstream;

import io.kodiak.http.BodyReader;
import io.kodiak.http.HttpViolationException;
import io.kodiak.http.ResponseHead;
import io.kodiak.http.Violation;
import io.kodiak.transport.HalfCloseTransportFilter.InputEnded;
import io.kodiak.transport.Pieces;
import io.kodiak.transport.PooledBuffers;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.filterchain.BaseFilter;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.FilterChainEvent;
import org.glassfish.grizzly.filterchain.NextAction;
import org.glassfish.grizzly.ssl.SSLUtils;

import javax.net.ssl.SSLEngine;
import java.io.IOException;

/**
 * Kodiak's HTTP/1.1 response codec on an upstream connection, right above the transport: it
 * reads heads with {@link io.kodiak.http.HeadReader}, delimits bodies with {@link BodyReader},
 * and hands the {@link ResponseListener} bound to the connection each head and each body piece
 * as a slice of the buffer it arrived in.
 * <ul>
 * <li>Anything a pooled connection sends with no request outstanding answers nothing: the
 *     connection is closed rather than reused.</li>
 * <li>A head or body that breaks the rules is reported to the listener once and the connection
 *     is closed: the next response is never read from the middle of this one.</li>
 * <li>Bytes after a complete response (Kodiak sends one request at a time) keep the connection
 *     out of the pool: pooled, they would be read as the next exchange's response, as nginx
 *     also refuses ("upstream sent more data than specified").</li>
 * <li>A body delimited by the connection's close ends with the end of the stream only when it is
 *     a valid closure: not a reset or a failed read, and over TLS after the upstream's
 *     close_notify (RFC 9112 §9.8); otherwise it was cut, and the listener hears of a close.</li>
 * </ul>
 */
public final class UpstreamFilter extends BaseFilter {

    @Override
    public NextAction handleRead(FilterChainContext ctx) throws IOException {
        return PooledBuffers.afterRead(ctx, read(ctx));
    }

    private NextAction read(FilterChainContext ctx) {
        Buffer buffer = ctx.getMessage();
        if (!buffer.hasRemaining()) {
            // Reads resumed after a pause: everything was handed over before it.
            return ctx.getStopAction();
        }
        UpstreamConnection state = UpstreamConnection.peek(ctx.getConnection());
        ResponseListener listener = state == null ? null : state.listener();
        if (listener == null) {
            ctx.getConnection().closeSilently();
            return ctx.getStopAction();
        }
        ResponseReading reading = state.reading();
        boolean paused = false;
        try {
            // Taken anew each time: a piece that was the whole buffer replaced it with an empty one.
            for (; buffer.hasRemaining(); buffer = ctx.getMessage()) {
                if (reading.phase == ResponseReading.Phase.HEAD) {
                    if (!reading.heads.read(buffer)) {
                        break;
                    }
                    paused |= !onHead(state, listener, buffer);
                } else if (reading.phase == ResponseReading.Phase.BODY) {
                    int n = reading.body.next(buffer);
                    Buffer piece = n > 0 ? Pieces.take(ctx, buffer, n) : null;
                    if (reading.body.isDone()) {
                        io.kodiak.http.Trailers trailers = reading.body.trailers();
                        if (trailers != null) {
                            listener.onResponseTrailers(state, trailers);
                        }
                        // What is left to read: the context's message, which a piece that was the
                        // whole buffer replaced with an empty one.
                        end(state, listener, null, piece, ctx.getMessage());
                    } else if (piece != null) {
                        paused |= !listener.onResponseBody(state, piece);
                    }
                } else {
                    paused |= !listener.onTunnelBytes(state, Pieces.take(ctx, buffer, buffer.remaining()));
                }
                if (reading.phase == ResponseReading.Phase.HEAD && reading.completed) {
                    // The response is over; the listener may already have handed the connection on.
                    reading.completed = false;
                    return ctx.getStopAction();
                }
                if (state.listener() != listener) {
                    // The listener let the connection go (it dropped this response to retry
                    // elsewhere): nothing more of it goes anywhere.
                    return ctx.getStopAction();
                }
            }
        } catch (HttpViolationException e) {
            reading.reset();
            listener.onInvalidResponse(state, e.violation());
            ctx.getConnection().closeSilently();
            return ctx.getStopAction();
        }
        if (paused) {
            // Every byte of this read was handed over; the context keeps an empty remainder.
            NextAction suspend = state.gate().close(ctx);
            if (suspend != null) {
                return suspend;
            }
        }
        return ctx.getStopAction();
    }

    /**
     * A complete head. The head goes on with the first piece of its body, when that came in the
     * same read: a body broken before its first data byte is answered with 502 instead of being
     * cut off after its head. Returns false when the listener asked to pause reads.
     */
    private static boolean onHead(UpstreamConnection state, ResponseListener listener, Buffer buffer) {
        ResponseReading reading = state.reading();
        ResponseHead head = reading.head;
        head.parse(reading.heads);
        try {
            return actOnHead(state, listener, buffer, head);
        } finally {
            // The listener has copied what it keeps of the head's bytes.
            reading.forgetHead();
        }
    }

    private static boolean actOnHead(UpstreamConnection state, ResponseListener listener, Buffer buffer, ResponseHead head) {
        ResponseReading reading = state.reading();
        int status = head.status();
        if (status == 101) {
            if (!listener.upgradeRequested()) {
                throw new HttpViolationException(Violation.UNSOLICITED_SWITCH);
            }
            reading.phase = ResponseReading.Phase.TUNNEL;
            return listener.onResponseHead(state, head, null);
        }
        if (head.isInterim()) {
            return listener.onInterimResponse(state, head);
        }
        reading.keepAlive = head.wantsKeepAlive();
        BodyReader body = reading.body;
        if (!head.hasBody(listener.requestWasHead())) {
            body.expectNone();
        } else if (head.isChunked()) {
            body.expectChunked();
        } else if (head.contentLength() >= 0) {
            body.expectLength(head.contentLength());
        } else {
            body.expectUntilClose();
        }
        Buffer first = null;
        while (first == null && buffer.hasRemaining() && !body.isDone()) {
            int n = body.next(buffer);
            if (n > 0) {
                first = Pieces.slice(buffer, n);
            }
        }
        if (body.isDone()) {
            // An empty chunked body, read whole with its head: its trailers too.
            io.kodiak.http.Trailers trailers = body.trailers();
            if (trailers != null) {
                listener.onResponseTrailers(state, trailers);
            }
            end(state, listener, head, first, buffer);
            return true;
        }
        reading.phase = ResponseReading.Phase.BODY;
        return listener.onResponseHead(state, head, first);
    }

    /** {@code rest}: what is left of this read after the response; bytes there keep the connection out of the pool. */
    private static void end(UpstreamConnection state, ResponseListener listener, ResponseHead head, Buffer lastPiece,
                            Buffer rest) {
        ResponseReading reading = state.reading();
        reading.phase = ResponseReading.Phase.HEAD;
        reading.completed = true;
        listener.onResponseEnd(state, head, lastPiece, reading.keepAlive && !rest.hasRemaining());
    }

    /**
     * After a 101, the upstream's input ended ({@link UpstreamTransportFilter}): the listener passes
     * the half-close on. Over TLS without a close_notify first, the connection was cut, not
     * half-closed: it closes, and the tunnel with it.
     */
    @Override
    public NextAction handleEvent(FilterChainContext ctx, FilterChainEvent event) throws IOException {
        if (event.type() != InputEnded.TYPE) {
            return ctx.getInvokeAction();
        }
        Connection<?> connection = ctx.getConnection();
        UpstreamConnection state = UpstreamConnection.peek(connection);
        ResponseListener listener = state == null ? null : state.listener();
        if (listener == null || !endedWhole(connection, state)) {
            connection.terminateSilently();
        } else {
            listener.onTunnelInputEnded(state);
        }
        return ctx.getStopAction();
    }

    @Override
    public NextAction handleClose(FilterChainContext ctx) throws IOException {
        UpstreamConnection state = UpstreamConnection.peek(ctx.getConnection());
        if (state == null) {
            return ctx.getInvokeAction();
        }
        state.gate().discard();
        ResponseReading reading = state.reading();
        boolean delimited = reading.phase == ResponseReading.Phase.BODY && reading.body.closeEnds()
                && endedWhole(ctx.getConnection(), state);
        ResponseListener listener = state.closed();
        if (listener != null) {
            if (delimited) {
                reading.reset();
                listener.onResponseEnd(state, null, null, false);
            } else {
                listener.onUpstreamClosed(state);
            }
        }
        return ctx.getInvokeAction();
    }

    /**
     * Whether the end of the upstream's stream is a valid end of a body delimited by it: not a reset
     * nor a failed read (a TLS record that did not decrypt, a fatal alert), and over TLS only after
     * the upstream's close_notify (RFC 9112 §9.8): without it the connection was cut, by a crash or
     * by whoever can reach the wire, and a client would take a truncated body as whole. Grizzly's
     * TLS filter never closes an engine's inbound side itself, so it is done only when the
     * upstream's close_notify came (its CLOSED unwrap), or after a failure, which the read failure
     * already tells.
     */
    private static boolean endedWhole(Connection<?> connection, UpstreamConnection state) {
        if (state.hasReadFailed()) {
            return false;
        }
        SSLEngine engine = SSLUtils.getSSLEngine(connection);
        return engine == null || engine.isInboundDone();
    }
}
