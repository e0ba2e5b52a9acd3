package io.kodiak.h2.upstream;

import io.kodiak.h2.ErrorCode;
import io.kodiak.h2.FloodGuard;
import io.kodiak.h2.Frame;
import io.kodiak.h2.FrameReader;
import io.kodiak.h2.FrameReads;
import io.kodiak.h2.FrameWriter;
import io.kodiak.h2.HeaderBlock;
import io.kodiak.h2.Http2Exception;
import io.kodiak.h2.Outbound;
import io.kodiak.h2.StreamMap;
import io.kodiak.transport.Pieces;
import io.kodiak.transport.WriteQueues;
import io.kodiak.upstream.ExchangeDeadlines;
import io.kodiak.upstream.ResponseListener;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.http2.hpack.HpackDecoder;
import org.eclipse.jetty.http2.hpack.HpackEncoder;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.WriteHandler;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The client side of one HTTP/2 connection to an upstream server (RFC 9113), on the loop that owns
 * it: our preface and SETTINGS at once, requests as streams ({@link Http2UpstreamStream}) up to
 * the server's SETTINGS_MAX_CONCURRENT_STREAMS, the server's frames read and dispatched, and its
 * GOAWAY honoured: streams up to its last-stream-id finish, later ones were not processed and
 * go back to their exchanges as refused (sent again as after a stale connection). A stream error
 * resets that stream and fails its attempt (an invalid response, 502); a connection error sends
 * GOAWAY and closes, every stream's attempt hearing of the close.
 *
 * <p>Flow control: what the server may send on a stream is given back as the attempt takes it, so
 * a slow client holds at most a stream window ({@link #STREAM_WINDOW}) here; the connection's
 * window is given back as DATA arrives, so one slow stream never stalls the others. What a stream
 * sends waits in its own queue for window. The connection stops reading while its write queue is
 * full, so replies to the server's PING and SETTINGS cannot pile up.
 */
public final class Http2UpstreamConnection implements FrameReader.Listener {
    private static final Logger LOG = LoggerFactory.getLogger(Http2UpstreamConnection.class);
    private static final org.glassfish.grizzly.attributes.Attribute<Http2UpstreamConnection> ATTR =
            org.glassfish.grizzly.Grizzly.DEFAULT_ATTRIBUTE_BUILDER.createAttribute(Http2UpstreamConnection.class.getName());

    /** What the server may send on one stream before we give window back. */
    static final int STREAM_WINDOW = 256 * 1024;
    /** What it may send on the connection (given back as it arrives). */
    static final int CONNECTION_WINDOW = 1024 * 1024;
    /** Streams we open before the server's SETTINGS say how many it takes (RFC 9113 §5.1.2 suggests at least 100). */
    static final int ASSUMED_MAX_STREAMS = 100;
    /** Frames that carry no progress (PING, SETTINGS, empty DATA...) a server may send per second. */
    private static final int MAX_IDLE_FRAMES_PER_SECOND = 1000;
    private static final int LARGEST_STREAM_ID = Integer.MAX_VALUE;
    /** How long a close waits for its last writes before the connection is cut. */
    static final long CLOSE_LINGER_MILLIS = 2000;

    private final Connection<?> connection;
    private final Http2Pool.LoopPool pool;
    private final ExchangeDeadlines deadlines;
    private final boolean tls;
    private final FrameWriter frames;
    private final Outbound out;
    private final FrameReader reader;
    private final HeaderBlock block = new HeaderBlock(ResponseTranslator.MAX_HEAD * 2);
    private final HpackDecoder decoder = new HpackDecoder(ResponseTranslator.MAX_HEAD * 2, System::nanoTime);
    private final HpackEncoder encoder = new HpackEncoder();
    private static final HttpField SCHEME_HTTP = new HttpField(HttpHeader.C_SCHEME, "http");
    private static final HttpField SCHEME_HTTPS = new HttpField(HttpHeader.C_SCHEME, "https");
    /** The dynamic table's new size, to announce at the start of the next block (-1: none). */
    private int tableSizeUpdate = -1;
    /** Where request heads are encoded, reused: the frame written copies the block. */
    private ByteBuffer blockScratch = ByteBuffer.allocate(1024);
    private final ResponseTranslator translator;
    private final FloodGuard flood = new FloodGuard(Integer.MAX_VALUE, MAX_IDLE_FRAMES_PER_SECOND);
    private final FrameReads reads;
    private final FrameReads.Closed isClosed = () -> this.closed;
    /** Streams whose attempt waits for room to send its request body. */
    private final List<Http2UpstreamStream> roomWaiters = new ArrayList<>();
    private boolean notifyingRoom;
    /** A wait for the socket's write queue is registered on behalf of the room waiters. */
    private boolean waitingForWriteQueue;
    /** Streams whose HEADERS went out, by id. */
    private final StreamMap<Http2UpstreamStream> open = new StreamMap<>();
    /** Slots handed to attempts whose HEADERS have not gone yet. */
    private int reserved;
    private int nextStreamId = 1;
    private long peerMaxStreams = ASSUMED_MAX_STREAMS;
    private boolean settingsReceived;
    private int connectionReceiveWindow = CONNECTION_WINDOW;
    private int connectionConsumed;
    /** Streams this connection has carried (a later one is "reused": the connection may have gone stale meanwhile). */
    private long carried;
    /** GOAWAY received or sent: no new stream. */
    private boolean goingAway;
    private boolean closed;
    /** Why the TLS handshake failed, or the server did not select h2 by ALPN; null if neither. */
    private Throwable failure;
    /** The connection error that ended it (the server's breach, or no answer to PING), for its streams' attempts; null if none. */
    private String broken;
    /** Epoch millis of the last frame read, and of our PING still unanswered (0: none). */
    private long lastReadMillis = System.currentTimeMillis();
    private long pingSentMillis;
    /** Epoch millis since when no stream is open (0 while some are). */
    private long idleSinceMillis = System.currentTimeMillis();
    /** Epoch millis of the close asked for (0: none), which waits for the writes before it. */
    private long closingSinceMillis;

    Http2UpstreamConnection(Connection<?> connection, Http2Pool.LoopPool pool, ExchangeDeadlines deadlines,
                            WriteQueues queues, boolean tls) {
        this.connection = connection;
        this.pool = pool;
        this.deadlines = deadlines;
        this.tls = tls;
        this.frames = new FrameWriter(connection.getMemoryManager());
        this.out = new Outbound(connection, queues, frames);
        this.reader = new FrameReader(connection.getMemoryManager(), Frame.DEFAULT_MAX_FRAME_SIZE, false);
        this.reads = new FrameReads(reader, out);
        this.translator = new ResponseTranslator(connection.getMemoryManager());
        ATTR.set(connection, this);
        this.failure = Http2UpstreamFilter.tlsFailure(connection);
        out.write(frames.preface(
                Frame.SETTINGS_ENABLE_PUSH, 0,
                Frame.SETTINGS_INITIAL_WINDOW_SIZE, STREAM_WINDOW,
                Frame.SETTINGS_MAX_HEADER_LIST_SIZE, ResponseTranslator.MAX_HEAD));
        out.write(frames.windowUpdate(0, CONNECTION_WINDOW - Frame.DEFAULT_WINDOW));
    }

    static Http2UpstreamConnection of(Connection<?> connection) {
        return ATTR.get(connection);
    }

    Connection<?> connection() {
        return connection;
    }

    io.kodiak.loop.EventLoop loop() {
        return pool.loop();
    }

    /** No new stream from now: the connection closes (GOAWAY NO_ERROR) once its last stream ends. */
    void drain() {
        if (closed || goingAway) {
            return;
        }
        goingAway = true;
        if (streams() == 0) {
            out.write(frames.goAway(0, ErrorCode.NO_ERROR, "retired"));
            closeNow();
        }
    }

    // ------------------------------------------------------------------ streams, for the pool

    /** Streams this connection can take now. */
    int available() {
        if (closed || goingAway || failure != null || broken != null) {
            return 0;
        }
        long left = Math.min(peerMaxStreams - open.size() - reserved, (LARGEST_STREAM_ID - nextStreamId) / 2 + 1 - reserved);
        return (int) Math.max(0, Math.min(left, Integer.MAX_VALUE));
    }

    /** A slot for {@code listener}'s request: its stream, which takes an id when the request goes. */
    Http2UpstreamStream reserve(ResponseListener listener) {
        reserved++;
        idleSinceMillis = 0;
        return new Http2UpstreamStream(this, listener, deadlines, carried++ > 0);
    }

    /** Streams open or promised. */
    int streams() {
        return open.size() + reserved;
    }

    boolean usable() {
        return !closed && !goingAway && failure == null && broken == null;
    }

    /** The request's HEADERS go out as a new stream; false when the connection can no longer send it. */
    boolean open(Http2UpstreamStream stream, Http2Request request, boolean endStream) {
        giveSlotBack(stream);
        if (closed || goingAway || failure != null || broken != null) {
            pool.capacityChanged(this);
            return false;
        }
        ByteBuffer headerBlock = encode(request);
        if (headerBlock == null) {
            connectionError(ErrorCode.INTERNAL_ERROR, "a request head HPACK could not encode");
            return false;
        }
        int id = nextStreamId;
        nextStreamId += 2;
        stream.id(id);
        stream.sendWindow = out.peerInitialWindow();
        stream.receiveWindow = STREAM_WINDOW;
        open.put(id, stream);
        out.headers(id, headerBlock, endStream);
        return true;
    }

    /**
     * The request's header block, field by field with the connection's encoder (pseudo-headers
     * first, RFC 9113 §8.3), into a buffer reused from one request to the next: the frame that
     * carries it copies it. Null when HPACK could not encode it (the table is then lost).
     */
    private ByteBuffer encode(Http2Request request) {
        String[] pairs = request.fields();
        String authority = request.authority();
        int worst = 128 + 4 * (request.method().length() + request.path().length() + (authority == null ? 0 : authority.length()));
        for (int i = 0; i < pairs.length; i += 2) {
            worst += 4 * (pairs[i].length() + pairs[i + 1].length()) + 16;
        }
        if (blockScratch.capacity() < worst) {
            blockScratch = ByteBuffer.allocate(Math.max(worst, blockScratch.capacity() * 2));
        }
        ByteBuffer block = blockScratch.clear();
        try {
            if (tableSizeUpdate >= 0) {
                encoder.encodeMaxDynamicTableSize(block, tableSizeUpdate);
                tableSizeUpdate = -1;
            }
            encoder.encode(block, new HttpField(HttpHeader.C_METHOD, request.method()));
            encoder.encode(block, tls ? SCHEME_HTTPS : SCHEME_HTTP);
            if (authority != null) {
                encoder.encode(block, new HttpField(HttpHeader.C_AUTHORITY, authority));
            }
            encoder.encode(block, new HttpField(HttpHeader.C_PATH, request.path()));
            for (int i = 0; i < pairs.length; i += 2) {
                encoder.encode(block, new HttpField(pairs[i], pairs[i + 1]));
            }
        } catch (RuntimeException e) {
            return null;
        }
        block.flip();
        return block;
    }

    /** The attempt let its stream go: an unfinished one is reset (CANCEL); its slot frees up. */
    void release(Http2UpstreamStream stream) {
        stopsWaiting(stream);
        if (stream.id() == 0) {
            // Never opened (the request did not go): its slot goes back.
            giveSlotBack(stream);
        } else if (open.remove(stream.id()) != null && stream.state() != io.kodiak.h2.StreamState.CLOSED && !closed) {
            out.write(frames.rstStream(stream.id(), ErrorCode.CANCEL));
            stream.closed(false, true);
        }
        streamLeft();
    }

    private void giveSlotBack(Http2UpstreamStream stream) {
        if (stream.holdsSlot) {
            stream.holdsSlot = false;
            reserved--;
        }
    }

    /** One stream fewer: a connection going away closes with its last one; else the pool may hand the slot out. */
    private void streamLeft() {
        if (streams() == 0) {
            idleSinceMillis = System.currentTimeMillis();
            if (goingAway && !closed) {
                closeNow();
                return;
            }
        }
        pool.capacityChanged(this);
    }

    /** Resets {@code stream} with {@code code} (the exchange closed its side). */
    void reset(Http2UpstreamStream stream, ErrorCode code) {
        if (stream.id() != 0 && stream.state() != io.kodiak.h2.StreamState.CLOSED && !closed) {
            out.write(frames.rstStream(stream.id(), code));
            stream.closed(false, true);
        }
    }

    // ------------------------------------------------------------------ writing, for the streams

    void queued(long n) {
        out.queued(n);
    }

    /** DATA bytes all streams queue for window now. */
    long queuedBytes() {
        return out.queuedBytes();
    }

    void flush(Http2UpstreamStream stream) {
        if (out.flush(stream)) {
            roomMayHaveCome();
        }
    }

    /** A stream waits for room (its own queue, or what all streams queue together). */
    void waitsForRoom(Http2UpstreamStream stream) {
        if (!roomWaiters.contains(stream)) {
            roomWaiters.add(stream);
        }
        if (!out.writeQueueHasRoom() && !waitingForWriteQueue) {
            waitingForWriteQueue = true;
            out.whenRoom(new WriteQueueRoom());
        }
    }

    void stopsWaiting(Http2UpstreamStream stream) {
        roomWaiters.remove(stream);
    }

    /** A stream's queued DATA was dropped (reset, or let go): room for the others. */
    void queueDropped() {
        if (!closed) {
            roomMayHaveCome();
        }
    }

    /**
     * After DATA went out: every stream waiting for room hears whether it has some now; one
     * stream's flush can free room another waits for (the connection's bound on all queues).
     */
    private void roomMayHaveCome() {
        if (roomWaiters.isEmpty() || notifyingRoom) {
            // Within a waiter's own call (it sent more, which flushed): the loop below goes on.
            return;
        }
        notifyingRoom = true;
        try {
            for (int i = 0; i < roomWaiters.size(); ) {
                Http2UpstreamStream waiting = roomWaiters.get(i);
                if (waiting.roomNow()) {
                    // Out of the list before it hears: waiting again from within puts it back.
                    roomWaiters.remove(i);
                    waiting.fireRoom();
                    i = 0;
                } else {
                    i++;
                }
            }
        } finally {
            notifyingRoom = false;
        }
        if (!roomWaiters.isEmpty() && !out.writeQueueHasRoom() && !waitingForWriteQueue) {
            // What stops them may be the socket's write queue, which no flush here will drain:
            // they hear again once it has room.
            waitingForWriteQueue = true;
            out.whenRoom(new WriteQueueRoom());
        }
    }

    private final class WriteQueueRoom implements WriteHandler {
        @Override
        public void onWritePossible() {
            waitingForWriteQueue = false;
            roomMayHaveCome();
        }

        @Override
        public void onError(Throwable failure) {
            waitingForWriteQueue = false;
        }
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

    void windowUpdate(int streamId, int increment) {
        if (!closed) {
            out.write(frames.windowUpdate(streamId, increment));
        }
    }

    /** Why TLS failed under the connection (the handshake, or ALPN not h2), for the attempt to name; null if it did not. */
    Throwable failure() {
        return failure;
    }

    // ------------------------------------------------------------------ reading

    NextAction onRead(FilterChainContext ctx) {
        try {
            return reads.read(ctx, this, isClosed);
        } catch (Http2Exception e) {
            connectionError(e.code(), e.getMessage());
        } catch (RuntimeException e) {
            LOG.warn("HTTP/2 connection to {} ended on an internal error", connection.getPeerAddress(), e);
            connectionError(ErrorCode.INTERNAL_ERROR, "internal error");
        }
        return ctx.getStopAction();
    }


    @Override
    public void onFrame(int type, int flags, int streamId, byte[] payload, int length) throws Http2Exception {
        lastReadMillis = System.currentTimeMillis();
        if (block.open() && type != Frame.CONTINUATION) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, Frame.typeName(type) + " in the middle of a header block");
        }
        if (!settingsReceived && type != Frame.SETTINGS) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "the server's preface is not SETTINGS");
        }
        try {
            switch (type) {
                case Frame.HEADERS -> {
                    if (block.headers(flags, streamId, payload, length)) {
                        headerBlockEnded();
                    }
                }
                case Frame.CONTINUATION -> {
                    if (length == 0 && flood.idleFrame()) {
                        throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "a flood of empty CONTINUATION frames");
                    }
                    if (block.continuation(flags, streamId, payload, length)) {
                        headerBlockEnded();
                    }
                }
                case Frame.PRIORITY -> {
                    if (length != 5) {
                        throw Http2Exception.stream(streamId, ErrorCode.FRAME_SIZE_ERROR, "PRIORITY of " + length + " bytes");
                    }
                    idle();
                }
                case Frame.RST_STREAM -> rstStream(streamId, payload, length);
                case Frame.SETTINGS -> settings(flags, streamId, payload, length);
                case Frame.PUSH_PROMISE -> throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "PUSH_PROMISE, which we disabled");
                case Frame.PING -> ping(flags, streamId, payload, length);
                case Frame.GOAWAY -> goAway(streamId, payload, length);
                case Frame.WINDOW_UPDATE -> windowUpdate(streamId, payload, length);
                default -> {
                    // RFC 9113 §5.5: frames of unknown types are ignored.
                }
            }
        } catch (Http2Exception e) {
            if (e.streamId() == 0) {
                throw e;
            }
            streamError(e);
        }
    }

    private void idle() throws Http2Exception {
        if (flood.idleFrame()) {
            throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "a flood of frames that make no progress");
        }
    }

    /** A stream we never opened: the server may not start one (no push), nor name one past ours. */
    private void checkKnown(int streamId, String what) throws Http2Exception {
        if (streamId % 2 == 0 || streamId >= nextStreamId) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, what + " on stream " + streamId + ", which we never opened");
        }
    }

    private void headerBlockEnded() throws Http2Exception {
        int streamId = block.streamId();
        boolean endStream = block.endsStream();
        // Decoded whatever the stream: the HPACK table is the connection's.
        MetaData fields = block.decode(decoder);
        Http2UpstreamStream stream = open.get(streamId);
        if (stream == null) {
            checkKnown(streamId, "HEADERS");
            return;
        }
        stream.headers(fields, endStream, translator);
        if (!stream.state().receives() && !stream.state().sends()) {
            open.remove(streamId);
        }
    }

    @Override
    public void onData(int flags, int streamId, Buffer payload) throws Http2Exception {
        lastReadMillis = System.currentTimeMillis();
        if (block.open()) {
            Pieces.drop(payload);
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "DATA in the middle of a header block");
        }
        int length = payload.remaining();
        if (streamId == 0) {
            Pieces.drop(payload);
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "DATA on stream 0");
        }
        if (length > connectionReceiveWindow) {
            Pieces.drop(payload);
            throw Http2Exception.connection(ErrorCode.FLOW_CONTROL_ERROR, "DATA beyond the connection's window");
        }
        connectionReceiveWindow -= length;
        connectionConsumed += length;
        if (connectionConsumed >= CONNECTION_WINDOW / 2) {
            connectionReceiveWindow += connectionConsumed;
            out.write(frames.windowUpdate(0, connectionConsumed));
            connectionConsumed = 0;
        }
        Buffer data = payload;
        if ((flags & Frame.PADDED) != 0) {
            if (length < 1) {
                Pieces.drop(payload);
                throw Http2Exception.connection(ErrorCode.FRAME_SIZE_ERROR, "padded DATA without its pad length");
            }
            int pad = payload.get(payload.position()) & 0xff;
            if (pad >= length) {
                Pieces.drop(payload);
                throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "DATA padding longer than the frame");
            }
            payload.position(payload.position() + 1);
            payload.limit(payload.limit() - pad);
        }
        boolean endStream = (flags & Frame.END_STREAM) != 0;
        if (data.remaining() == 0 && !endStream) {
            idle();
        }
        Http2UpstreamStream stream = open.get(streamId);
        if (stream == null) {
            Pieces.drop(data);
            checkKnown(streamId, "DATA");
            return;
        }
        try {
            stream.data(data, length, endStream);
        } catch (Http2Exception e) {
            streamError(e);
            return;
        }
        if (!stream.state().receives() && !stream.state().sends()) {
            open.remove(streamId);
        }
    }

    private void rstStream(int streamId, byte[] payload, int length) throws Http2Exception {
        if (length != 4) {
            throw Http2Exception.connection(ErrorCode.FRAME_SIZE_ERROR, "RST_STREAM of " + length + " bytes");
        }
        if (streamId == 0) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "RST_STREAM on stream 0");
        }
        int code = readInt(payload, 0);
        Http2UpstreamStream stream = open.remove(streamId);
        if (stream == null) {
            checkKnown(streamId, "RST_STREAM");
            return;
        }
        // NO_ERROR after a whole response only stops the request's body (RFC 9113 §8.1).
        stream.closed(code == ErrorCode.REFUSED_STREAM.code, code == ErrorCode.NO_ERROR.code);
        if (code != ErrorCode.NO_ERROR.code && LOG.isDebugEnabled()) {
            LOG.debug("HTTP/2 upstream {} reset stream {}: {}", connection.getPeerAddress(), streamId, ErrorCode.nameOf(code));
        }
        pool.streamReset(ErrorCode.nameOf(code));
    }

    private void settings(int flags, int streamId, byte[] payload, int length) throws Http2Exception {
        if (streamId != 0) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "SETTINGS on a stream");
        }
        if ((flags & Frame.ACK) != 0) {
            if (length != 0) {
                throw Http2Exception.connection(ErrorCode.FRAME_SIZE_ERROR, "a SETTINGS ACK with a payload");
            }
            return;
        }
        if (length % 6 != 0) {
            throw Http2Exception.connection(ErrorCode.FRAME_SIZE_ERROR, "SETTINGS of " + length + " bytes");
        }
        if (settingsReceived) {
            idle();
        }
        for (int i = 0; i < length; i += 6) {
            int id = (payload[i] & 0xff) << 8 | payload[i + 1] & 0xff;
            int value = readInt(payload, i + 2);
            switch (id) {
                case Frame.SETTINGS_HEADER_TABLE_SIZE -> {
                    int capacity = Math.min(value, 4096);
                    if (value >= 0 && capacity != encoder.getTableCapacity()) {
                        encoder.setMaxTableCapacity(value);
                        encoder.setTableCapacity(capacity);
                        // RFC 7541 §4.2: the decoder hears of the new size at the start of the next block.
                        tableSizeUpdate = capacity;
                    }
                }
                case Frame.SETTINGS_ENABLE_PUSH -> {
                    if (value != 0) {
                        throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "a server's SETTINGS_ENABLE_PUSH of " + value);
                    }
                }
                case Frame.SETTINGS_MAX_CONCURRENT_STREAMS -> peerMaxStreams = value & 0xffffffffL;
                case Frame.SETTINGS_INITIAL_WINDOW_SIZE -> {
                    if (value < 0) {
                        throw Http2Exception.connection(ErrorCode.FLOW_CONTROL_ERROR, "SETTINGS_INITIAL_WINDOW_SIZE over 2^31-1");
                    }
                    int delta = out.peerInitialWindow(value);
                    for (Http2UpstreamStream stream : open.values()) {
                        stream.sendWindow += delta;
                        if (stream.sendWindow > Frame.LARGEST_WINDOW) {
                            throw Http2Exception.connection(ErrorCode.FLOW_CONTROL_ERROR, "a stream's window past 2^31-1");
                        }
                    }
                }
                case Frame.SETTINGS_MAX_FRAME_SIZE -> {
                    if (value < Frame.DEFAULT_MAX_FRAME_SIZE || value > Frame.LARGEST_MAX_FRAME_SIZE) {
                        throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "SETTINGS_MAX_FRAME_SIZE of " + value);
                    }
                    out.peerMaxFrameSize(value);
                }
                default -> {
                    // MAX_HEADER_LIST_SIZE is advisory; unknown settings are ignored (§6.5.2).
                }
            }
        }
        settingsReceived = true;
        out.write(frames.settingsAck());
        flushAll();
        pool.capacityChanged(this);
    }

    private void ping(int flags, int streamId, byte[] payload, int length) throws Http2Exception {
        if (length != 8) {
            throw Http2Exception.connection(ErrorCode.FRAME_SIZE_ERROR, "PING of " + length + " bytes");
        }
        if (streamId != 0) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "PING on a stream");
        }
        if ((flags & Frame.ACK) != 0) {
            pingSentMillis = 0;
            return;
        }
        idle();
        out.write(frames.pingAck(((long) readInt(payload, 0) << 32) | (readInt(payload, 4) & 0xffffffffL)));
    }

    private void goAway(int streamId, byte[] payload, int length) throws Http2Exception {
        if (streamId != 0) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "GOAWAY on a stream");
        }
        if (length < 8) {
            throw Http2Exception.connection(ErrorCode.FRAME_SIZE_ERROR, "GOAWAY of " + length + " bytes");
        }
        int lastStreamId = readInt(payload, 0) & Integer.MAX_VALUE;
        int code = readInt(payload, 4);
        goingAway = true;
        pool.goAwayReceived(this, ErrorCode.nameOf(code));
        LOG.debug("HTTP/2 upstream {} going away ({}), last stream {}", connection.getPeerAddress(), ErrorCode.nameOf(code), lastStreamId);
        List<Http2UpstreamStream> refused = new ArrayList<>();
        for (Http2UpstreamStream stream : open.values()) {
            if (stream.id() > lastStreamId) {
                refused.add(stream);
            }
        }
        for (Http2UpstreamStream stream : refused) {
            open.remove(stream.id());
            stream.closed(true, false);
        }
        streamLeft();
    }

    private void windowUpdate(int streamId, byte[] payload, int length) throws Http2Exception {
        if (length != 4) {
            throw Http2Exception.connection(ErrorCode.FRAME_SIZE_ERROR, "WINDOW_UPDATE of " + length + " bytes");
        }
        int increment = readInt(payload, 0) & Integer.MAX_VALUE;
        if (increment == 0) {
            if (streamId == 0) {
                throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "a WINDOW_UPDATE of 0");
            }
            throw Http2Exception.stream(streamId, ErrorCode.PROTOCOL_ERROR, "a WINDOW_UPDATE of 0");
        }
        if (streamId == 0) {
            if (!out.connectionWindowUpdate(increment)) {
                throw Http2Exception.connection(ErrorCode.FLOW_CONTROL_ERROR, "the connection's window past 2^31-1");
            }
            flushAll();
            return;
        }
        Http2UpstreamStream stream = open.get(streamId);
        if (stream == null) {
            checkKnown(streamId, "WINDOW_UPDATE");
            return;
        }
        stream.sendWindow += increment;
        if (stream.sendWindow > Frame.LARGEST_WINDOW) {
            throw Http2Exception.stream(streamId, ErrorCode.FLOW_CONTROL_ERROR, "a stream's window past 2^31-1");
        }
        flush(stream);
    }

    private void flushAll() {
        if (!out.anyQueued()) {
            return;
        }
        for (Http2UpstreamStream stream : open.values()) {
            if (stream.hasQueued()) {
                flush(stream);
            }
        }
    }

    private static int readInt(byte[] bytes, int at) {
        return (bytes[at] & 0xff) << 24 | (bytes[at + 1] & 0xff) << 16 | (bytes[at + 2] & 0xff) << 8 | bytes[at + 3] & 0xff;
    }

    // ------------------------------------------------------------------ errors and the end

    /** The server broke the protocol on one stream: it is reset, and its attempt hears of an invalid response. */
    private void streamError(Http2Exception e) {
        Http2UpstreamStream stream = open.remove(e.streamId());
        if (!closed) {
            out.write(frames.rstStream(e.streamId(), e.code()));
        }
        if (stream != null) {
            LOG.debug("HTTP/2 upstream {} stream {}: {}", connection.getPeerAddress(), e.streamId(), e.getMessage());
            stream.invalid(e.getMessage() + " (stream " + e.streamId() + ", " + e.code() + ")");
        }
        streamLeft();
    }

    /** A connection error: GOAWAY with its code, then the connection closes, every stream with it. */
    private void connectionError(ErrorCode code, String detail) {
        if (closed) {
            return;
        }
        LOG.info("HTTP/2 connection to upstream {} closed with {}: {}", connection.getPeerAddress(), code, detail);
        broken = "HTTP/2 connection error " + code + ": " + detail;
        goingAway = true;
        out.write(frames.goAway(0, code, detail));
        closeNow();
    }

    /** The server did not select h2 by ALPN: nothing is sent, and the attempts name why. */
    void refuse(String why) {
        failure = new IOException(why);
        goingAway = true;
        closeNow();
    }

    /** TLS failed under the connection: its attempts name {@code cause}. */
    void tlsFailed(Throwable cause) {
        if (failure == null) {
            failure = cause;
        }
    }

    /**
     * Closes once what was written is out (a GOAWAY, say); a peer that reads nothing more would
     * hold a graceful close for ever, so {@link #check} cuts it after {@link #CLOSE_LINGER_MILLIS}.
     */
    private void closeNow() {
        if (closingSinceMillis == 0) {
            closingSinceMillis = System.currentTimeMillis();
        }
        connection.closeSilently();
    }

    /**
     * Called at a steady pace by the pool: an idle connection past {@code idleMillis} is closed
     * (GOAWAY NO_ERROR); one that read nothing for {@code pingMillis} gets a PING, and one whose
     * PING went unanswered that long is taken for dead and closed.
     */
    void check(long now, long idleMillis, long pingMillis) {
        if (closed) {
            return;
        }
        if (closingSinceMillis != 0) {
            if (now - closingSinceMillis >= CLOSE_LINGER_MILLIS) {
                connection.terminateSilently();
            }
            return;
        }
        if (streams() == 0 && idleSinceMillis != 0 && now - idleSinceMillis >= idleMillis) {
            goingAway = true;
            out.write(frames.goAway(0, ErrorCode.NO_ERROR, "idle"));
            closeNow();
            return;
        }
        if (pingSentMillis != 0) {
            if (now - pingSentMillis >= pingMillis) {
                LOG.info("HTTP/2 connection to upstream {} closed: no answer to PING in {} ms", connection.getPeerAddress(), pingMillis);
                broken = "no answer to PING within " + pingMillis + " ms";
                closeNow();
            }
        } else if (now - lastReadMillis >= pingMillis) {
            pingSentMillis = now;
            out.write(frames.ping(now));
        }
    }

    /** The connection closed: every stream's attempt hears of it (a stream past a GOAWAY as refused). */
    void onClosed() {
        if (closed) {
            return;
        }
        closed = true;
        reads.closed();
        List<Http2UpstreamStream> streams = open.values();
        open.clear();
        roomWaiters.clear();
        if (LOG.isDebugEnabled()) {
            LOG.debug("HTTP/2 connection to upstream {} closed ({} streams open, {} reserved, going away {}, {})",
                    connection.getPeerAddress(), streams.size(), reserved, goingAway, broken != null ? broken : failure);
        }
        for (Http2UpstreamStream stream : streams) {
            if (broken != null) {
                stream.invalid(broken);
            } else {
                stream.closed(false, false);
            }
        }
        pool.closed(this);
    }

    boolean isClosed() {
        return closed;
    }

    @Override
    public String toString() {
        return "h2 to " + connection.getPeerAddress() + " (" + open.size() + " open, " + reserved + " reserved)";
    }
}
