package io.kodiak.h2;

import io.kodiak.exchange.Admission;
import io.kodiak.transport.Pieces;
import org.eclipse.jetty.http2.hpack.HpackDecoder;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.WriteHandler;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;
import org.glassfish.grizzly.memory.MemoryManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;

/**
 * The server side of one HTTP/2 connection (RFC 9113), on the loop that owns the connection: its
 * frames read ({@link FrameReader}) and dispatched (header blocks to {@link HeaderBlock} and
 * {@link Requests}, DATA to {@link Inbound}, the rest to {@link ControlFrames}), its streams
 * ({@link StreamTable}; each {@link Http2Stream} the client side of one exchange), what it sends
 * ({@link Outbound}, HPACK by {@link ResponseEncoder}), and how it ends: GOAWAY, then a lingering
 * close. A connection error sends GOAWAY and closes; a stream error resets that stream and serves
 * the rest.
 *
 * <p>Flow control is back-pressure. Toward the client, DATA leaves as the windows allow and each
 * stream queues the rest (bounded, {@link Http2Stream#BUFFERED_LIMIT}). From the client, a stream's
 * window is given back as its exchange takes the body, so an upstream that does not read stops
 * its client's stream; the connection's window is given back as DATA arrives, so one stopped
 * stream never stalls the others. The connection stops reading while its write queue is full:
 * replies to PING and SETTINGS cannot pile up.
 */
public final class Http2Connection implements FrameReader.Listener {
    private static final Logger LOG = LoggerFactory.getLogger(Http2Connection.class);

    private final Http2Settings settings;
    private final Admission admission;
    private final Http2Peer peer;
    private final Http2Observer observer;
    private final MemoryManager memory;
    private final FrameWriter frames;
    private final Outbound out;
    private final FrameReader reader;
    private final HeaderBlock block;
    private final HpackDecoder decoder;
    private final ResponseEncoder encoder = new ResponseEncoder();
    private final RequestTranslator translator;
    private final FloodGuard flood;
    private final FrameReads reads;
    private final FrameReads.Closed isClosed = () -> this.closed;
    private final StreamTable streams;
    private final ControlFrames control;
    private final Inbound inbound;
    private final Requests requests;
    /** GOAWAY sent (or received): no new stream is served, and the connection ends with its last one. */
    private boolean goingAway;
    /** After a connection error, or the close: what is read is dropped. */
    private boolean closed;

    public Http2Connection(Connection<?> connection, Http2Settings settings, Admission admission, Http2Peer peer,
                           Http2Observer observer) {
        this.settings = settings;
        this.admission = admission;
        this.peer = peer;
        this.observer = observer;
        this.memory = connection.getMemoryManager();
        this.frames = new FrameWriter(memory);
        this.out = new Outbound(connection, admission.writeQueues(), frames);
        this.reader = new FrameReader(memory, settings.maxFrameSize());
        this.reads = new FrameReads(reader, out);
        // Past twice max-header-size a block is not gathered nor decoded: a connection error. Up
        // to it, the fields are decoded (the table stays in step) and a list over max-header-size
        // gets a 431.
        this.block = new HeaderBlock(settings.maxHeaderListSize() * 2);
        this.decoder = new HpackDecoder(settings.maxHeaderListSize() * 2, System::nanoTime);
        this.translator = new RequestTranslator(settings.maxHeaderListSize(), memory);
        this.flood = new FloodGuard(settings.maxResetsPerSecond(), settings.maxIdleFramesPerSecond());
        this.streams = new StreamTable(out, observer, peer, flood, this::lastStreamLeft);
        this.control = new ControlFrames(streams, out, flood, observer, encoder, peer, this::clientGoingAway);
        this.inbound = new Inbound(streams, out, flood, peer);
        this.requests = new Requests(this, streams, block, decoder, translator, admission, settings);
        out.write(frames.settings(
                Frame.SETTINGS_MAX_CONCURRENT_STREAMS, settings.maxConcurrentStreams(),
                Frame.SETTINGS_INITIAL_WINDOW_SIZE, settings.initialWindowSize(),
                Frame.SETTINGS_MAX_FRAME_SIZE, settings.maxFrameSize(),
                Frame.SETTINGS_MAX_HEADER_LIST_SIZE, settings.maxHeaderListSize()));
        out.write(frames.windowUpdate(0, Inbound.CONNECTION_WINDOW - Frame.DEFAULT_WINDOW));
    }

    // ------------------------------------------------------------------ reading

    /** Everything the client sends once it opened with the HTTP/2 preface (after a connection error: dropped). */
    public NextAction onRead(FilterChainContext ctx) {
        try {
            return reads.read(ctx, this, isClosed);
        } catch (Http2Exception e) {
            connectionError(e.code(), e.getMessage());
        } catch (RuntimeException e) {
            // A bug of Kodiak's, not the client's: this connection ends, the others go on.
            LOG.warn("HTTP/2 connection from {} ended on an internal error", peer.address(), e);
            connectionError(ErrorCode.INTERNAL_ERROR, "internal error");
        }
        return ctx.getStopAction();
    }


    @Override
    public void onFrame(int type, int flags, int streamId, byte[] payload, int length) throws Http2Exception {
        if (block.open() && type != Frame.CONTINUATION) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR,
                    Frame.typeName(type) + " in the middle of a header block");
        }
        if (!control.settingsReceived() && type != Frame.SETTINGS) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "the preface's first frame is not SETTINGS");
        }
        try {
            switch (type) {
                case Frame.HEADERS -> {
                    if (block.headers(flags, streamId, payload, length)) {
                        requests.blockEnded();
                    }
                }
                case Frame.CONTINUATION -> {
                    if (length == 0 && flood.idleFrame()) {
                        throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "a flood of empty CONTINUATION frames");
                    }
                    if (block.continuation(flags, streamId, payload, length)) {
                        requests.blockEnded();
                    }
                }
                case Frame.PRIORITY -> control.priority(streamId, payload, length);
                case Frame.RST_STREAM -> control.reset(streamId, payload, length);
                case Frame.SETTINGS -> control.settings(flags, streamId, payload, length);
                case Frame.PUSH_PROMISE -> throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "PUSH_PROMISE from a client");
                case Frame.PING -> control.ping(flags, streamId, payload, length);
                case Frame.GOAWAY -> control.goAway(streamId, payload, length);
                case Frame.WINDOW_UPDATE -> control.windowUpdate(streamId, payload, length);
                default -> {
                    // RFC 9113 §5.5: frames of unknown types are ignored.
                }
            }
        } catch (Http2Exception e) {
            if (e.streamId() == 0) {
                throw e;
            }
            streams.streamError(e);
        }
    }

    @Override
    public void onData(int flags, int streamId, Buffer payload) throws Http2Exception {
        if (block.open()) {
            Pieces.drop(payload);
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "DATA in the middle of a header block");
        }
        inbound.data(flags, streamId, payload);
    }

    /** A new stream, its windows as the settings on both sides stand now. */
    Http2Stream newStream(int streamId) {
        return new Http2Stream(this, streamId, out.peerInitialWindow(), settings.initialWindowSize());
    }

    /** GOAWAY was sent or received: no new stream is served. */
    boolean goingAway() {
        return goingAway;
    }

    // ------------------------------------------------------------------ writing, for the streams

    /** A header block for the stream; null when HPACK could not encode it: the table is lost, and the connection with it. */
    void writeHeaders(Http2Stream stream, ByteBuffer headerBlock, boolean endStream) {
        if (headerBlock == null) {
            // On the loop's next turn: this runs inside an exchange's call, which ending it now
            // would pull out from under it.
            peer.loop().post(() -> connectionError(ErrorCode.INTERNAL_ERROR, "a response head HPACK could not encode"));
            return;
        }
        out.headers(stream.id, headerBlock, endStream);
    }

    /** HPACK could not encode a block: the table is lost, and the connection with it (on the loop's next turn). */
    void encodingFailed() {
        peer.loop().post(() -> connectionError(ErrorCode.INTERNAL_ERROR, "a header block HPACK could not encode"));
    }

    void windowUpdate(int streamId, int increment) {
        out.write(frames.windowUpdate(streamId, increment));
    }

    void flush(Http2Stream stream) {
        streams.flush(stream);
    }

    void queued(long n) {
        out.queued(n);
    }

    void waiting(int change) {
        streams.waiting(change);
    }

    boolean hasRoom() {
        return out.hasRoom();
    }

    boolean writeQueueHasRoom() {
        return out.writeQueueHasRoom();
    }

    void whenRoom(WriteHandler then) {
        out.whenRoom(then);
    }

    // ------------------------------------------------------------------ streams' ends

    /** The stream's exchange is over with its answer whole: the stream ends once its DATA is out. */
    void streamEnded(Http2Stream stream) {
        retireIfDone(stream);
    }

    void retireIfDone(Http2Stream stream) {
        streams.retireIfDone(stream);
    }

    void reset(Http2Stream stream, ErrorCode code) {
        streams.reset(stream, code);
    }

    /** The last stream left: a connection going away ends now; else the idle clock runs from now. */
    private void lastStreamLeft() {
        if (closed) {
            return;
        }
        if (goingAway || admission.draining()) {
            goAway(ErrorCode.NO_ERROR, "the proxy is stopping");
            peer.linger();
        } else {
            peer.activity();
        }
    }

    /** The client sent GOAWAY: it opens no more streams; those open are served, then the connection ends. */
    private void clientGoingAway() {
        goingAway = true;
        if (streams.isEmpty()) {
            peer.linger();
        }
    }

    /** A connection error: GOAWAY with its code, then the connection closes (its streams with it). */
    private void connectionError(ErrorCode code, String detail) {
        if (closed) {
            return;
        }
        if (LOG.isDebugEnabled()) {
            LOG.debug("HTTP/2 connection from {} closed with {}: {}", peer.address(), code, detail);
        }
        goAway(code, detail);
        closed = true;
        streams.closeAll();
        peer.linger();
    }

    /** Tells the client the last stream that will be served (idle timeout, stop, an error). */
    public void goAway(ErrorCode code, String detail) {
        if (!goingAway || code != ErrorCode.NO_ERROR) {
            goingAway = true;
            out.write(frames.goAway(streams.lastStreamId(), code, detail));
            observer.goAway(false, code.name());
        }
    }

    /**
     * Nothing moved for idle-timeout. With no stream open, the connection is done (true: GOAWAY
     * NO_ERROR was sent). Otherwise a stream that waits for window the client never gave is reset
     * (CANCEL): a client that opens no window would hold its responses for ever. Streams whose
     * exchanges still run are left to their own deadlines.
     */
    public boolean idleTimedOut() {
        if (streams.isEmpty()) {
            goAway(ErrorCode.NO_ERROR, "idle longer than idle-timeout");
            return true;
        }
        streams.resetBlocked();
        peer.activity();
        return false;
    }

    /** The connection closed: every stream's exchange ends as when its client leaves. */
    public void onClosed() {
        closed = true;
        reads.closed();
        streams.closeAll();
    }

    // ------------------------------------------------------------------ for the streams

    Http2Peer peer() {
        return peer;
    }

    MemoryManager memory() {
        return memory;
    }

    ResponseEncoder encoder() {
        return encoder;
    }

    int initialReceiveWindow() {
        return settings.initialWindowSize();
    }
}
