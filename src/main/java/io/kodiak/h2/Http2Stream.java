package io.kodiak.h2;

import io.kodiak.exchange.ClientStream;
import io.kodiak.exchange.Exchange;
import io.kodiak.exchange.ProxyError;
import io.kodiak.h1.LocalAnswer;
import io.kodiak.http.ResponseHead;
import io.kodiak.loop.EventLoop;
import io.kodiak.routing.HeaderRules;
import io.kodiak.routing.HeaderVariable;
import io.kodiak.transport.Pieces;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.WriteHandler;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.MemoryManager;

import java.io.IOException;
import java.util.ArrayDeque;

/**
 * One HTTP/2 stream as the client side of an exchange. The response's head goes out as a header
 * block at once; its body as DATA frames as far as the stream's and the connection's send windows
 * allow, the rest queued here. The exchange is told there is room while this stream's queue is
 * under {@link #BUFFERED_LIMIT} and the connection's write queue has room, so a client that does
 * not open its window stops the upstream's reads for this stream only, never its neighbours'.
 *
 * <p>The request's body comes as DATA; the window the client may fill is given back as the
 * exchange takes each piece, and held back while the exchange has asked the client to pause.
 */
final class Http2Stream implements ClientStream, SendingStream {
    /** Response bytes a stream may hold beyond its send window before its upstream's reads pause. */
    static final int BUFFERED_LIMIT = Outbound.STREAM_BUFFER_LIMIT;

    private final Http2Connection owner;
    final int id;
    private StreamState state = StreamState.OPEN;
    private Exchange exchange;
    private boolean headRequest;
    /** What we may still send (the client's window for this stream). */
    long sendWindow;
    /** What the client may still send before we give window back. */
    int receiveWindow;
    /** Request bytes taken by the exchange and not given back yet. */
    private int consumed;
    /** The exchange asked the client to pause: window goes back only on resumeReads. */
    private boolean paused;
    /** content-length of the request, or -1; DATA must add up to it. */
    private long expectedLength = -1;
    private long receivedLength;
    /** Response pieces waiting for window, and whether the response ends after them. */
    private final ArrayDeque<Buffer> queued = new ArrayDeque<>();
    private long queuedBytes;
    private boolean endQueued;
    /** The exchange gave the response's end (or a local answer): nothing more comes from it. */
    private boolean answered;
    private WriteHandler roomWaiter;
    /** The response's trailers, to end the stream with once its DATA is out; null: END_STREAM on DATA. */
    private io.kodiak.http.Trailers trailers;

    Http2Stream(Http2Connection owner, int id, long sendWindow, int receiveWindow) {
        this.owner = owner;
        this.id = id;
        this.sendWindow = sendWindow;
        this.receiveWindow = receiveWindow;
    }

    /** The request's exchange, and its body's content-length (-1: none). */
    void start(Exchange exchange, long expectedLength) {
        this.exchange = exchange;
        this.expectedLength = expectedLength;
    }

    /** The request is a HEAD: its answer has no body. */
    void headRequest(boolean head) {
        this.headRequest = head;
    }

    @Override
    public int id() {
        return id;
    }

    @Override
    public StreamState state() {
        return state;
    }

    @Override
    public long sendWindow() {
        return sendWindow;
    }

    Exchange exchange() {
        return exchange;
    }

    // ------------------------------------------------------------------ from the client

    /** The client's END_STREAM (on DATA or trailers). Throws when DATA did not add up to content-length. */
    void remoteEnded() throws Http2Exception {
        if (expectedLength >= 0 && receivedLength != expectedLength) {
            throw Http2Exception.stream(id, ErrorCode.PROTOCOL_ERROR,
                    "request DATA of " + receivedLength + " bytes, content-length " + expectedLength);
        }
        state = state.remoteEnded();
    }

    /**
     * A DATA frame's {@code length} bytes (padding included) against the stream's window; {@code
     * data} of them are body. Throws a stream error for a window overrun or a body longer than
     * its content-length.
     */
    void received(int length, int data) throws Http2Exception {
        if (length > receiveWindow) {
            throw Http2Exception.stream(id, ErrorCode.FLOW_CONTROL_ERROR, "DATA beyond the stream's window");
        }
        receiveWindow -= length;
        receivedLength += data;
        if (expectedLength >= 0 && receivedLength > expectedLength) {
            throw Http2Exception.stream(id, ErrorCode.PROTOCOL_ERROR,
                    "request DATA over its content-length " + expectedLength);
        }
        // Padding is nobody's to take: its window goes back with the next update.
        consumed += length - data;
    }

    /** The exchange took {@code n} body bytes: window to give back, now unless it asked to pause. */
    void taken(int n, boolean go) {
        consumed += n;
        if (!go) {
            paused = true;
        }
        giveBackWindow(false);
    }

    /** Sends a WINDOW_UPDATE once half of the window was consumed (or {@code now}), while the client may still send. */
    private void giveBackWindow(boolean now) {
        if (paused || consumed == 0 || !state.receives()) {
            return;
        }
        if (now || consumed >= owner.initialReceiveWindow() / 2) {
            receiveWindow += consumed;
            owner.windowUpdate(id, consumed);
            consumed = 0;
        }
    }

    // ------------------------------------------------------------------ ClientStream

    @Override
    public EventLoop loop() {
        return owner.peer().loop();
    }

    @Override
    public MemoryManager memory() {
        return owner.memory();
    }

    @Override
    public String address() {
        return owner.peer().address();
    }

    @Override
    public io.kodiak.proxyprotocol.ClientOrigin origin() {
        return owner.peer().origin();
    }

    @Override
    public String tlsProtocol() {
        return owner.peer().tlsProtocol();
    }

    @Override
    public String protocol(io.kodiak.http.RequestHead head) {
        return "HTTP/2.0";
    }

    @Override
    public boolean misdirected(String host) {
        return owner.peer().misdirected(host);
    }

    @Override
    public boolean mayKeepAlive() {
        // A stream's end never ends its connection.
        return true;
    }

    @Override
    public void sendContinue() {
        if (state.sends()) {
            owner.writeHeaders(this, owner.encoder().status(100), false);
        }
    }

    @Override
    public boolean sendInterim(ResponseHead head) {
        if (state.sends()) {
            owner.writeHeaders(this, owner.encoder().head(head, HeaderRules.NONE, null), false);
        }
        return true;
    }

    @Override
    public boolean sendHead(ResponseHead head, HeaderRules rules, HeaderVariable.Values values, boolean keepAllowed,
                            Buffer firstPiece, boolean last) {
        if (!state.sends()) {
            Pieces.drop(firstPiece);
            return true;
        }
        boolean empty = firstPiece == null || !firstPiece.hasRemaining();
        boolean endsNow = last && empty;
        owner.writeHeaders(this, owner.encoder().head(head, rules, values), endsNow);
        if (endsNow) {
            Pieces.drop(firstPiece);
            answered = true;
            localEnded();
        } else if (!empty || last) {
            sendBody(firstPiece, last);
        } else {
            // An empty first piece: nothing to send, but its buffer goes back to its pool.
            Pieces.drop(firstPiece);
        }
        return true;
    }

    @Override
    public void sendBody(Buffer piece, boolean last) {
        if (!state.sends() || headRequest) {
            Pieces.drop(piece);
            if (last && state.sends() && headRequest) {
                endQueued = true;
                answered = true;
                owner.flush(this);
            }
            return;
        }
        if (piece != null && piece.hasRemaining()) {
            queued.add(piece);
            queuedBytes += piece.remaining();
            owner.queued(piece.remaining());
        } else {
            Pieces.drop(piece);
        }
        if (last) {
            endQueued = true;
            answered = true;
        }
        owner.flush(this);
    }

    @Override
    public void sendEnd(Buffer lastPiece, io.kodiak.http.Trailers fields) {
        if (state.sends() && !headRequest && fields != null && !fields.isEmpty()) {
            trailers = fields;
        }
        sendBody(lastPiece, true);
    }

    @Override
    public boolean endsWithTrailers() {
        return trailers != null;
    }

    @Override
    public java.nio.ByteBuffer trailerBlock() {
        java.nio.ByteBuffer block = owner.encoder().trailers(trailers);
        if (block == null) {
            owner.encodingFailed();
        }
        return block;
    }

    @Override
    public void relay(Buffer bytes) {
        // No tunnel on an HTTP/2 stream (no Upgrade reaches an exchange from here).
        Pieces.drop(bytes);
    }

    @Override
    public void sendLocal(ProxyError error, String detail, long requestNumber, boolean keep) {
        if (!state.sends()) {
            return;
        }
        byte[] body = LocalAnswer.body(error, detail, requestNumber);
        answerLocally(error.status, body, 0);
    }

    /** Kodiak's own answer on this stream: a head, and the text unless the request was HEAD. */
    void answerLocally(int status, byte[] body, long retryAfterSeconds) {
        java.nio.ByteBuffer block = retryAfterSeconds > 0
                ? owner.encoder().status(status, "content-type", "text/plain; charset=utf-8",
                        "content-length", Integer.toString(body.length), "retry-after", Long.toString(retryAfterSeconds))
                : owner.encoder().status(status, "content-type", "text/plain; charset=utf-8",
                        "content-length", Integer.toString(body.length));
        owner.writeHeaders(this, block, headRequest);
        if (headRequest) {
            answered = true;
            localEnded();
            return;
        }
        sendBody(Buffers.wrap(owner.memory(), body), true);
    }

    @Override
    public void resumeReads() {
        paused = false;
        giveBackWindow(true);
    }

    @Override
    public void switchToTunnel(Exchange exchange) {
        owner.reset(this, ErrorCode.PROTOCOL_ERROR);
    }

    /**
     * The exchange is over. Its response not whole (it failed midway, or the client left): the
     * stream is reset. Whole, the stream ends once its queued DATA is out; a request body still
     * coming is declined with RST_STREAM NO_ERROR then (RFC 9113 §8.1).
     */
    @Override
    public void exchangeEnded(Exchange ended, boolean keepAlive) {
        if (ended != exchange) {
            return;
        }
        exchange = null;
        if (!answered && state != StreamState.CLOSED) {
            owner.reset(this, ErrorCode.INTERNAL_ERROR);
            return;
        }
        owner.streamEnded(this);
    }

    @Override
    public boolean hasRoom() {
        return queuedBytes < BUFFERED_LIMIT && owner.hasRoom();
    }

    @Override
    public void whenRoom(WriteHandler then) {
        if (!owner.writeQueueHasRoom()) {
            owner.whenRoom(then);
            return;
        }
        if (roomWaiter == null) {
            owner.waiting(1);
        }
        roomWaiter = then;
        // The write queue drained since hasRoom said no: the streams' queues decide.
        roomMayHaveCome();
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

    // ------------------------------------------------------------------ for the connection

    boolean hasQueued() {
        return !queued.isEmpty() || endQueued && state.sends();
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
    public void sent(int n) {
        queuedBytes -= n;
        sendWindow -= n;
    }

    /** After a flush: an exchange waiting for room hears of it once the queue is under its limit. */
    void roomMayHaveCome() {
        if (roomWaiter != null && queuedBytes < BUFFERED_LIMIT && owner.hasRoom()) {
            WriteHandler waiter = roomWaiter;
            roomWaiter = null;
            owner.waiting(-1);
            try {
                waiter.onWritePossible();
            } catch (Exception e) {
                waiter.onError(e);
            }
        }
    }

    /** Our END_STREAM went out. */
    @Override
    public void localEnded() {
        if (!state.sends()) {
            // Closed meanwhile: the write found the connection gone, and its close closed the stream.
            return;
        }
        state = state.localEnded();
        owner.retireIfDone(this);
    }

    /** The exchange is let go of (the stream is reset or its connection closed); returned to be told. */
    Exchange detach() {
        Exchange attached = exchange;
        exchange = null;
        return attached;
    }

    /** The stream is done with (reset, or its connection closed): queued pieces go back, a waiter hears it. */
    void closed() {
        state = StreamState.CLOSED;
        for (Buffer piece; (piece = queued.poll()) != null; ) {
            Pieces.drop(piece);
        }
        owner.queued(-queuedBytes);
        queuedBytes = 0;
        endQueued = false;
        WriteHandler waiter = roomWaiter;
        roomWaiter = null;
        if (waiter != null) {
            owner.waiting(-1);
            waiter.onError(new IOException("HTTP/2 stream " + id + " closed"));
        }
    }

    /** The request ended on the client's side (END_STREAM came). */
    boolean requestEnded() {
        return !state.receives();
    }

    @Override
    public String toString() {
        return "stream " + id + " " + state;
    }
}
