package io.kodiak.h2.upstream;

import io.kodiak.exchange.PreparedRequest;
import io.kodiak.exchange.UpstreamStream;
import io.kodiak.h2.ErrorCode;
import io.kodiak.h2.Http2Exception;
import io.kodiak.h2.Outbound;
import io.kodiak.h2.SendingStream;
import io.kodiak.h2.StreamState;
import io.kodiak.http.ResponseHead;
import io.kodiak.http.Trailers;
import io.kodiak.transport.Pieces;
import io.kodiak.upstream.ExchangeDeadlines;
import io.kodiak.upstream.ResponseListener;
import io.kodiak.upstream.UpstreamConnection;
import org.eclipse.jetty.http.MetaData;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.WriteHandler;

import java.io.IOException;
import java.util.ArrayDeque;

/**
 * One attempt's request as a stream of an h2 upstream connection (Envoy's UpstreamRequest on a
 * multiplexed pool): its slot is taken when the pool hands it over, its id when the request's
 * HEADERS go out. The request body leaves as DATA as far as the windows allow, the rest queued
 * here (the exchange is told there is room while the queue is under {@link
 * Outbound#STREAM_BUFFER_LIMIT}); the response comes back to the attempt through the same
 * {@link ResponseListener} an HTTP/1.1 connection reports to, and the window the server may fill
 * is given back as the attempt takes each piece, held while it has asked to pause. Its deadline is
 * its own clock's ({@link UpstreamConnection#detached()}). Every call comes on the connection's loop.
 */
final class Http2UpstreamStream implements UpstreamStream, SendingStream {
    private final Http2UpstreamConnection owner;
    private final ResponseListener listener;
    private final UpstreamConnection clock;
    private final ExchangeDeadlines deadlines;
    private final boolean reused;
    /** 0 until the request's HEADERS went out. */
    private int id;
    private StreamState state = StreamState.OPEN;
    private boolean finished;
    /** The connection closed or reset the stream before the attempt heard of it; reported once. */
    private boolean closedEarly;
    /** The server refused the stream (REFUSED_STREAM, or past a GOAWAY's last stream): nothing was processed. */
    private boolean refused;
    private boolean finalHead;
    private long expectedLength = -1;
    private long receivedLength;
    long sendWindow;
    int receiveWindow;
    private int consumed;
    private boolean paused;
    private final ArrayDeque<Buffer> queued = new ArrayDeque<>();
    private long queuedBytes;
    private boolean endQueued;
    private WriteHandler roomWaiter;
    /** Reserved on its connection and not opened yet (the connection counts it as promised). */
    boolean holdsSlot = true;

    Http2UpstreamStream(Http2UpstreamConnection owner, ResponseListener listener, ExchangeDeadlines deadlines,
                        boolean reused) {
        this.owner = owner;
        this.listener = listener;
        this.deadlines = deadlines;
        this.reused = reused;
        this.clock = UpstreamConnection.detached();
        clock.bind(listener);
    }

    // ------------------------------------------------------------------ the request

    @Override
    public void sendRequest(PreparedRequest prepared, Buffer held, boolean last) {
        Http2Request request = (Http2Request) prepared;
        if (finished) {
            // Let go while the request was on its way (the client left during a 100 Continue).
            Pieces.drop(held);
            return;
        }
        boolean noBody = held == null || !held.hasRemaining();
        if (!owner.open(this, request, last && noBody)) {
            // The connection closed or is going away before the request could go: nothing was
            // sent, so the exchange may send it elsewhere whatever its method; it hears at once.
            closedEarly = true;
            refused = true;
            Pieces.drop(held);
            return;
        }
        if (last && noBody) {
            Pieces.drop(held);
            localEnded();
            return;
        }
        sendBody(held, last);
    }

    @Override
    public void sendBody(Buffer piece, boolean last) {
        if (id == 0 || !state.sends() || endQueued) {
            Pieces.drop(piece);
            return;
        }
        if (piece != null && piece.hasRemaining()) {
            queued.add(piece);
            queuedBytes += piece.remaining();
            owner.queued(piece.remaining());
        } else {
            Pieces.drop(piece);
        }
        endQueued = last;
        owner.flush(this);
    }

    @Override
    public void relay(Buffer bytes) {
        // No 101 comes over HTTP/2 (RFC 9113 §8.6): no tunnel either.
        Pieces.drop(bytes);
    }

    @Override
    public boolean hasRoom() {
        return queuedBytes < Outbound.STREAM_BUFFER_LIMIT && owner.hasRoom();
    }

    @Override
    public void whenRoom(WriteHandler then) {
        if (!owner.writeQueueHasRoom()) {
            owner.whenRoom(then);
            return;
        }
        roomWaiter = then;
        if (roomNow()) {
            fireRoom();
        } else {
            owner.waitsForRoom(this);
        }
    }

    /** An exchange waits for room, and there is some: its queue is under the limit, and the connection's. */
    boolean roomNow() {
        return roomWaiter != null && queuedBytes < Outbound.STREAM_BUFFER_LIMIT && owner.hasRoom();
    }

    /** The waiting exchange hears there is room (it may send, and wait again, from within). */
    void fireRoom() {
        WriteHandler waiter = roomWaiter;
        roomWaiter = null;
        if (waiter != null) {
            try {
                waiter.onWritePossible();
            } catch (Exception e) {
                waiter.onError(e);
            }
        }
    }

    @Override
    public boolean halfCloses() {
        return false;
    }

    @Override
    public void shutdownOutput() {
        owner.reset(this, ErrorCode.CANCEL);
    }

    @Override
    public void close() {
        owner.reset(this, ErrorCode.CANCEL);
    }

    // ------------------------------------------------------------------ the exchange's view

    @Override
    public void resumeReads() {
        paused = false;
        giveBackWindow(true);
    }

    @Override
    public void armDeadline(long millis) {
        deadlines.arm(clock, millis);
    }

    @Override
    public boolean deadlineSet() {
        return clock.deadlineSet();
    }

    @Override
    public boolean closedBeforeBound() {
        if (closedEarly) {
            closedEarly = false;
            return true;
        }
        return false;
    }

    @Override
    public boolean reused() {
        return reused;
    }

    @Override
    public boolean refused() {
        return refused;
    }

    @Override
    public boolean headBegun() {
        return false;
    }

    @Override
    public Throwable tlsFailure() {
        return owner.failure();
    }

    @Override
    public void finish(boolean reusable) {
        if (finished) {
            return;
        }
        finished = true;
        deadlines.disarm(clock);
        clock.retire();
        owner.release(this);
    }

    // ------------------------------------------------------------------ SendingStream

    @Override
    public int id() {
        return id;
    }

    void id(int assigned) {
        id = assigned;
    }

    @Override
    public StreamState state() {
        return state;
    }

    @Override
    public ArrayDeque<Buffer> queued() {
        return queued;
    }

    @Override
    public boolean endQueued() {
        return endQueued;
    }

    @Override
    public long sendWindow() {
        return sendWindow;
    }

    @Override
    public void sent(int n) {
        queuedBytes -= n;
        sendWindow -= n;
    }

    @Override
    public void localEnded() {
        if (state.sends()) {
            state = state.localEnded();
        }
    }

    boolean finished() {
        return finished;
    }

    boolean hasQueued() {
        return !queued.isEmpty() || endQueued && state.sends();
    }

    // ------------------------------------------------------------------ the response

    /** A header block for this stream: the response's head (1xx first, maybe) or its trailers. */
    void headers(MetaData fields, boolean endStream, ResponseTranslator translator) throws Http2Exception {
        if (!state.receives()) {
            throw Http2Exception.stream(id, ErrorCode.STREAM_CLOSED, "HEADERS after the response's end");
        }
        if (finalHead) {
            if (!endStream) {
                throw Http2Exception.stream(id, ErrorCode.PROTOCOL_ERROR, "trailers without END_STREAM");
            }
            if (fields instanceof MetaData.Response || fields instanceof MetaData.Request) {
                // Jetty's decoder takes pseudo-headers out of the fields: their presence shows here.
                throw Http2Exception.stream(id, ErrorCode.PROTOCOL_ERROR, "malformed response: a pseudo-header in trailers");
            }
            Trailers trailers = ResponseTranslator.trailers(id, fields);
            checkLength();
            state = state.remoteEnded();
            listener.onResponseTrailers(clock, trailers);
            listener.onResponseEnd(clock, null, null, true);
            return;
        }
        if (!(fields instanceof MetaData.Response response)) {
            throw Http2Exception.stream(id, ErrorCode.PROTOCOL_ERROR, "malformed response: no :status");
        }
        if (ResponseTranslator.listSize(fields) > ResponseTranslator.MAX_HEAD) {
            throw Http2Exception.stream(id, ErrorCode.PROTOCOL_ERROR, "a response head over "
                    + ResponseTranslator.MAX_HEAD + " bytes");
        }
        ResponseHead head = translator.translate(id, response, endStream, listener.requestWasHead());
        if (head.isInterim()) {
            if (endStream) {
                throw Http2Exception.stream(id, ErrorCode.PROTOCOL_ERROR, "an interim response that ends the stream");
            }
            if (!listener.onInterimResponse(clock, head)) {
                paused = true;
            }
            return;
        }
        finalHead = true;
        // A response with no content (to HEAD, a 204 or 304) may announce a length it does not
        // carry (RFC 9113 §8.1.1), and none of its DATA may reach the client: on a kept-alive
        // HTTP/1.1 connection, those bytes would be read as the next response.
        boolean bodyless = !head.hasBody(listener.requestWasHead());
        expectedLength = bodyless ? 0 : head.contentLength();
        if (endStream) {
            if (expectedLength > 0) {
                throw Http2Exception.stream(id, ErrorCode.PROTOCOL_ERROR, "content-length " + expectedLength + " and no DATA");
            }
            state = state.remoteEnded();
            listener.onResponseEnd(clock, head, null, true);
        } else if (bodyless) {
            // The whole response is its head, as an HTTP/1.1 upstream's is: it ends here, and the
            // stream is let go (reset) with whatever the server still sends on it.
            listener.onResponseEnd(clock, head, null, true);
        } else if (!listener.onResponseHead(clock, head, null)) {
            paused = true;
        }
    }

    /** A DATA frame's body bytes ({@code data}; {@code length} with its padding, against the window). */
    void data(Buffer data, int length, boolean endStream) throws Http2Exception {
        if (!state.receives()) {
            Pieces.drop(data);
            throw Http2Exception.stream(id, ErrorCode.STREAM_CLOSED, "DATA after the response's end");
        }
        if (length > receiveWindow) {
            Pieces.drop(data);
            throw Http2Exception.stream(id, ErrorCode.FLOW_CONTROL_ERROR, "DATA beyond the stream's window");
        }
        if (!finalHead) {
            Pieces.drop(data);
            throw Http2Exception.stream(id, ErrorCode.PROTOCOL_ERROR, "DATA before the response's head");
        }
        receiveWindow -= length;
        consumed += length - data.remaining();
        receivedLength += data.remaining();
        if (expectedLength >= 0 && receivedLength > expectedLength) {
            Pieces.drop(data);
            throw Http2Exception.stream(id, ErrorCode.PROTOCOL_ERROR, "DATA over its content-length " + expectedLength);
        }
        int taken = data.remaining();
        if (endStream) {
            try {
                checkLength();
            } catch (Http2Exception short_) {
                Pieces.drop(data);
                throw short_;
            }
            state = state.remoteEnded();
            listener.onResponseEnd(clock, null, data, true);
            return;
        }
        boolean go = listener.onResponseBody(clock, data);
        consumed += taken;
        if (!go) {
            paused = true;
        }
        giveBackWindow(false);
    }

    private void checkLength() throws Http2Exception {
        if (expectedLength >= 0 && receivedLength != expectedLength) {
            throw Http2Exception.stream(id, ErrorCode.PROTOCOL_ERROR,
                    "DATA of " + receivedLength + " bytes, content-length " + expectedLength);
        }
    }

    private void giveBackWindow(boolean now) {
        if (paused || consumed == 0 || !state.receives() || finished) {
            return;
        }
        if (now || consumed >= Http2UpstreamConnection.STREAM_WINDOW / 2) {
            receiveWindow += consumed;
            owner.windowUpdate(id, consumed);
            consumed = 0;
        }
    }

    /** A stream error of the server's response: the attempt hears the response is invalid. */
    void invalid(String why) {
        state = StreamState.CLOSED;
        dropQueued();
        if (!finished) {
            listener.onInvalidResponse(clock, why);
        }
    }

    /**
     * The server reset the stream, or the connection closed under it. {@code refusedByPeer}: the
     * server says it processed nothing (REFUSED_STREAM, or a stream past its GOAWAY's last one).
     * A response that ended already needs nothing more (a reset NO_ERROR only stops the request body).
     */
    void closed(boolean refusedByPeer, boolean responseDoneIsFine) {
        boolean responseDone = !state.receives();
        state = StreamState.CLOSED;
        refused |= refusedByPeer;
        dropQueued();
        if (finished || responseDone && responseDoneIsFine) {
            return;
        }
        if (id == 0) {
            // Not sent: the attempt finds out as it sends (closedBeforeBound).
            closedEarly = true;
            return;
        }
        listener.onUpstreamClosed(clock);
    }

    private void dropQueued() {
        for (Buffer piece; (piece = queued.poll()) != null; ) {
            Pieces.drop(piece);
        }
        owner.queued(-queuedBytes);
        queuedBytes = 0;
        endQueued = false;
        WriteHandler waiter = roomWaiter;
        roomWaiter = null;
        owner.stopsWaiting(this);
        if (waiter != null) {
            waiter.onError(new IOException("HTTP/2 stream " + id + " closed"));
        }
        // What this stream held counted against the connection's bound: others may send now.
        owner.queueDropped();
    }

    @Override
    public String toString() {
        return "upstream stream " + id + " " + state;
    }
}
