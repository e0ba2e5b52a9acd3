package io.kodiak.h2;

import io.kodiak.exchange.Admission;
import io.kodiak.exchange.Exchange;
import io.kodiak.exchange.ProxyError;
import io.kodiak.h1.LocalAnswer;
import io.kodiak.http.HttpViolationException;
import io.kodiak.http.RequestHead;
import io.kodiak.http.RequestMethod;
import io.kodiak.transport.Pieces;
import io.kodiak.transport.ReadGate;
import io.kodiak.transport.WriteQueues;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.http2.hpack.HpackDecoder;
import org.eclipse.jetty.http2.hpack.HpackException;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.WriteHandler;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;
import org.glassfish.grizzly.memory.MemoryManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The server side of one HTTP/2 connection (RFC 9113), on the loop that owns the connection: its
 * frames read ({@link FrameReader}) and answered, its SETTINGS both ways, its streams ({@link
 * Http2Stream}, each the client side of one exchange), HPACK both ways (Jetty's decoder, {@link
 * ResponseEncoder}), flow control both ways and the defences against floods. A connection error
 * sends GOAWAY and closes; a stream error resets that stream and serves the rest.
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
    /** The connection-level window we keep open for the client (given back as DATA arrives). */
    private static final int CONNECTION_WINDOW = 1 << 20;

    private final Connection<?> connection;
    private final Http2Settings settings;
    private final Admission admission;
    private final Http2Peer peer;
    private final Http2Observer observer;
    private final WriteQueues queues;
    private final MemoryManager memory;
    private final FrameWriter frames;
    private final FrameReader reader;
    private final HpackDecoder decoder;
    private final ResponseEncoder encoder = new ResponseEncoder();
    private final RequestTranslator translator;
    private final FloodGuard flood;
    private final ReadGate reads = new ReadGate();
    private final Map<Integer, Http2Stream> streams = new HashMap<>();

    private boolean settingsReceived;
    private int lastStreamId;
    private long connectionSendWindow = Frame.DEFAULT_WINDOW;
    private int connectionReceiveWindow = CONNECTION_WINDOW;
    private int connectionConsumed;
    private int peerInitialWindow = Frame.DEFAULT_WINDOW;
    private int peerMaxFrameSize = Frame.DEFAULT_MAX_FRAME_SIZE;
    /** A header block being gathered across HEADERS and CONTINUATION frames: its stream (0: none). */
    private int blockStream;
    private boolean blockEndsStream;
    private byte[] block = new byte[1024];
    private int blockLength;
    private boolean goingAway;
    private boolean closed;

    public Http2Connection(Connection<?> connection, Http2Settings settings, Admission admission, Http2Peer peer,
                           Http2Observer observer) {
        this.observer = observer;
        this.connection = connection;
        this.settings = settings;
        this.admission = admission;
        this.peer = peer;
        this.queues = admission.writeQueues();
        this.memory = connection.getMemoryManager();
        this.frames = new FrameWriter(memory);
        this.reader = new FrameReader(memory, settings.maxFrameSize());
        // Past twice max-header-size the decoder stops: a connection error. Up to it, the fields
        // are decoded (the table stays in step) and a list over max-header-size gets a 431.
        this.decoder = new HpackDecoder(settings.maxHeaderListSize() * 2, System::nanoTime);
        this.translator = new RequestTranslator(settings.maxHeaderListSize(), memory);
        this.flood = new FloodGuard(settings.maxResetsPerSecond(), settings.maxIdleFramesPerSecond());
        write(frames.settings(
                Frame.SETTINGS_MAX_CONCURRENT_STREAMS, settings.maxConcurrentStreams(),
                Frame.SETTINGS_INITIAL_WINDOW_SIZE, settings.initialWindowSize(),
                Frame.SETTINGS_MAX_FRAME_SIZE, settings.maxFrameSize(),
                Frame.SETTINGS_MAX_HEADER_LIST_SIZE, settings.maxHeaderListSize()));
        write(frames.windowUpdate(0, CONNECTION_WINDOW - Frame.DEFAULT_WINDOW));
    }

    // ------------------------------------------------------------------ reading

    /** Everything the client sends once it opened with the HTTP/2 preface (after a connection error: dropped). */
    public NextAction onRead(FilterChainContext ctx) {
        try {
            while (!closed) {
                Buffer in = ctx.getMessage();
                if (!in.hasRemaining()) {
                    break;
                }
                if (reader.next(ctx, in, this) && !closed && !queues.hasRoom(connection)) {
                    // Our answers pile up unread: read nothing more until they are out.
                    queues.whenRoom(connection, new Resume());
                    NextAction held = reads.close(ctx);
                    if (held != null) {
                        return held;
                    }
                }
            }
        } catch (Http2Exception e) {
            connectionError(e.code(), e.getMessage());
        } catch (RuntimeException e) {
            // A bug of Kodiak's, not the client's: this connection ends, the others go on.
            LOG.warn("HTTP/2 connection from {} ended on an internal error", peer.address(), e);
            connectionError(ErrorCode.INTERNAL_ERROR, "internal error");
        }
        return ctx.getStopAction();
    }

    private final class Resume implements WriteHandler {
        @Override
        public void onWritePossible() {
            reads.open();
        }

        @Override
        public void onError(Throwable failure) {
            reads.discard();
        }
    }

    @Override
    public void onFrame(int type, int flags, int streamId, byte[] payload, int length) throws Http2Exception {
        if (blockStream != 0 && type != Frame.CONTINUATION) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR,
                    Frame.typeName(type) + " in the middle of a header block");
        }
        if (!settingsReceived && type != Frame.SETTINGS) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "the preface's first frame is not SETTINGS");
        }
        try {
            switch (type) {
                case Frame.HEADERS -> onHeaders(flags, streamId, payload, length);
                case Frame.CONTINUATION -> onContinuation(flags, streamId, payload, length);
                case Frame.PRIORITY -> onPriority(streamId, length);
                case Frame.RST_STREAM -> onReset(streamId, payload, length);
                case Frame.SETTINGS -> onSettings(flags, streamId, payload, length);
                case Frame.PUSH_PROMISE -> throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "PUSH_PROMISE from a client");
                case Frame.PING -> onPing(flags, streamId, payload, length);
                case Frame.GOAWAY -> onGoAway(streamId, payload, length);
                case Frame.WINDOW_UPDATE -> onWindowUpdate(streamId, payload, length);
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

    // ------------------------------------------------------------------ headers

    private void onHeaders(int flags, int streamId, byte[] payload, int length) throws Http2Exception {
        if (streamId == 0) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "HEADERS on stream 0");
        }
        int from = 0;
        int to = length;
        if ((flags & Frame.PADDED) != 0) {
            if (length < 1) {
                throw Http2Exception.connection(ErrorCode.FRAME_SIZE_ERROR, "padded HEADERS without its pad length");
            }
            int pad = payload[0] & 0xff;
            from = 1;
            to -= pad;
        }
        if ((flags & Frame.PRIORITY_FLAG) != 0) {
            if (to - from < 5) {
                throw Http2Exception.connection(ErrorCode.FRAME_SIZE_ERROR, "HEADERS too short for its priority");
            }
            int dependency = (payload[from] & 0x7f) << 24 | (payload[from + 1] & 0xff) << 16
                    | (payload[from + 2] & 0xff) << 8 | payload[from + 3] & 0xff;
            from += 5;
            if (dependency == streamId) {
                throw Http2Exception.stream(streamId, ErrorCode.PROTOCOL_ERROR, "a stream that depends on itself");
            }
        }
        if (to < from) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "HEADERS padding longer than the frame");
        }
        blockStream = streamId;
        blockEndsStream = (flags & Frame.END_STREAM) != 0;
        blockLength = 0;
        appendBlock(payload, from, to);
        if ((flags & Frame.END_HEADERS) != 0) {
            endBlock();
        }
    }

    private void onContinuation(int flags, int streamId, byte[] payload, int length) throws Http2Exception {
        if (blockStream == 0 || streamId != blockStream) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "CONTINUATION without the HEADERS before it");
        }
        appendBlock(payload, 0, length);
        if ((flags & Frame.END_HEADERS) != 0) {
            endBlock();
        }
    }

    /** CONTINUATION floods: a header block is bounded across its frames, before it is decoded. */
    private void appendBlock(byte[] payload, int from, int to) throws Http2Exception {
        int n = to - from;
        int limit = settings.maxHeaderListSize() * 2;
        if (blockLength + n > limit) {
            throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM,
                    "a header block over " + limit + " bytes (twice max-header-size)");
        }
        if (blockLength + n > block.length) {
            block = Arrays.copyOf(block, Math.min(limit, Math.max(block.length * 2, blockLength + n)));
        }
        System.arraycopy(payload, from, block, blockLength, n);
        blockLength += n;
    }

    private void endBlock() throws Http2Exception {
        int streamId = blockStream;
        boolean endStream = blockEndsStream;
        blockStream = 0;
        MetaData fields;
        try {
            fields = decoder.decode(ByteBuffer.wrap(block, 0, blockLength));
        } catch (HpackException.StreamException e) {
            if (streamId > lastStreamId) {
                lastStreamId = streamId;
            }
            throw Http2Exception.stream(streamId, ErrorCode.PROTOCOL_ERROR, "malformed header block: " + e.getMessage());
        } catch (HpackException.SessionException e) {
            throw Http2Exception.connection(ErrorCode.COMPRESSION_ERROR, "HPACK: " + e.getMessage());
        }
        if (streamId <= lastStreamId) {
            onTrailers(streamId, endStream);
            return;
        }
        if ((streamId & 1) == 0) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "a client stream with an even id");
        }
        lastStreamId = streamId;
        if (goingAway) {
            // RFC 9113 §6.8: streams opened after our GOAWAY are not served.
            return;
        }
        if (admission.draining()) {
            // The proxy stops: this stream is the last one (its answer is a 503), and the
            // connection closes once the streams open end.
            goAway(ErrorCode.NO_ERROR, "the proxy is stopping");
        }
        if (streams.size() >= settings.maxConcurrentStreams()) {
            if (flood.reset()) {
                throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "too many refused streams");
            }
            throw Http2Exception.stream(streamId, ErrorCode.REFUSED_STREAM, "over max-concurrent-streams");
        }
        if (!(fields instanceof MetaData.Request request) || fields instanceof MetaData.ConnectRequest) {
            throw Http2Exception.stream(streamId, ErrorCode.PROTOCOL_ERROR,
                    fields instanceof MetaData.ConnectRequest ? "CONNECT is not supported" : "not a request head");
        }
        Http2Stream stream = new Http2Stream(this, streamId, peerInitialWindow, settings.initialWindowSize());
        streams.put(streamId, stream);
        observer.streamOpened();
        if (streams.size() == 1) {
            peer.idle(false);
        }
        if (endStream) {
            stream.remoteEnded();
        }
        startRequest(stream, request, endStream);
    }

    /** A header block on a stream already open: the request's trailers, which end it. */
    private void onTrailers(int streamId, boolean endStream) throws Http2Exception {
        Http2Stream stream = streams.get(streamId);
        if (stream == null || !stream.state().receives()) {
            throw Http2Exception.stream(streamId, ErrorCode.STREAM_CLOSED, "HEADERS on a closed stream");
        }
        if (!endStream) {
            throw Http2Exception.stream(streamId, ErrorCode.PROTOCOL_ERROR, "trailers without END_STREAM");
        }
        // Trailers are not relayed to an HTTP/1.1 upstream (Kodiak's HTTP/1.1 codec drops them too).
        stream.remoteEnded();
        Exchange exchange = stream.exchange();
        if (exchange != null) {
            stream.taken(0, exchange.onRequestBody(org.glassfish.grizzly.memory.Buffers.EMPTY_BUFFER, true));
        }
        retireIfDone(stream);
    }

    private void startRequest(Http2Stream stream, MetaData.Request request, boolean endStream) throws Http2Exception {
        long start = System.nanoTime();
        RequestHead head;
        try {
            if (listSize(request) > settings.maxHeaderListSize()) {
                throw new HttpViolationException(io.kodiak.http.Violation.HEAD_TOO_LARGE);
            }
            head = translator.translate(stream.id, request, endStream);
        } catch (HttpViolationException e) {
            ProxyError error = ProxyError.of(e.violation());
            stream.headRequest("HEAD".equals(request.getMethod()));
            admission.recordRefusal(stream, null, null, error, start);
            stream.answerLocally(error.status, LocalAnswer.body(error, e.violation().text(), 0), 0);
            translator.forget();
            return;
        }
        try {
            stream.headRequest(head.method() == RequestMethod.HEAD);
            Admission.Decision decision = admission.decide(head, stream);
            ProxyError refusal = decision.refusal();
            if (refusal != null) {
                admission.recordRefusal(stream, head, decision, refusal, start);
                stream.answerLocally(refusal.status, LocalAnswer.body(refusal, null, decision.requestNumberFor5xx()),
                        decision.retryAfterSeconds());
                return;
            }
            Exchange exchange = admission.begin(stream, head, decision);
            stream.start(exchange, head.method() == RequestMethod.HEAD, head.isChunked() ? -1 : head.contentLength());
            translator.forget();
            exchange.start();
        } finally {
            translator.forget();
        }
    }

    /** RFC 9113 §6.5.2: the size of a field list, each field's name and value plus 32. */
    private static long listSize(MetaData.Request request) {
        long size = 0;
        for (HttpField field : request.getHttpFields()) {
            size += field.getName().length() + (field.getValue() == null ? 0 : field.getValue().length()) + 32;
        }
        return size;
    }

    // ------------------------------------------------------------------ data

    @Override
    public void onData(int flags, int streamId, Buffer payload) throws Http2Exception {
        int length = payload.remaining();
        try {
            if (blockStream != 0) {
                throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "DATA in the middle of a header block");
            }
            if (streamId == 0) {
                throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "DATA on stream 0");
            }
            if (length > connectionReceiveWindow) {
                throw Http2Exception.connection(ErrorCode.FLOW_CONTROL_ERROR, "DATA beyond the connection's window");
            }
            connectionReceiveWindow -= length;
            connectionConsumed += length;
            if (connectionConsumed >= CONNECTION_WINDOW / 2) {
                connectionReceiveWindow += connectionConsumed;
                write(frames.windowUpdate(0, connectionConsumed));
                connectionConsumed = 0;
            }
        } catch (Http2Exception e) {
            Pieces.drop(payload);
            throw e;
        }
        Http2Stream stream = streams.get(streamId);
        if (stream == null || !stream.state().receives()) {
            Pieces.drop(payload);
            if (streamId > lastStreamId) {
                throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "DATA on an idle stream");
            }
            // Sent before our RST_STREAM or END_STREAM reached the client: dropped (RFC 9113 §5.1).
            if (stream != null) {
                streamError(Http2Exception.stream(streamId, ErrorCode.STREAM_CLOSED, "DATA after END_STREAM"));
            }
            return;
        }
        int data = length;
        if ((flags & Frame.PADDED) != 0) {
            int pad = length < 1 ? -1 : payload.get(payload.position()) & 0xff;
            if (pad < 0 || pad >= length) {
                Pieces.drop(payload);
                throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "DATA padding longer than the frame");
            }
            data = length - 1 - pad;
            payload.position(payload.position() + 1);
            payload.limit(payload.position() + data);
        }
        boolean end = (flags & Frame.END_STREAM) != 0;
        try {
            stream.received(length, data);
            if (end) {
                stream.remoteEnded();
            }
            if (data == 0 && !end && flood.idleFrame()) {
                throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "a flood of empty DATA frames");
            }
        } catch (Http2Exception e) {
            Pieces.drop(payload);
            if (e.streamId() == 0) {
                throw e;
            }
            streamError(e);
            return;
        }
        Exchange exchange = stream.exchange();
        if (exchange == null) {
            // Answered already (refused, or an early answer): the body is read and dropped.
            Pieces.drop(payload);
            stream.taken(data, true);
        } else {
            stream.taken(data, exchange.onRequestBody(payload, end));
        }
        if (end) {
            retireIfDone(stream);
        }
    }

    // ------------------------------------------------------------------ control frames

    private void onPriority(int streamId, int length) throws Http2Exception {
        if (streamId == 0) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "PRIORITY on stream 0");
        }
        if (length != 5) {
            throw Http2Exception.stream(streamId, ErrorCode.FRAME_SIZE_ERROR, "PRIORITY of " + length + " bytes");
        }
        // RFC 9113 deprecates priority signals: read and ignored, but counted.
        if (flood.idleFrame()) {
            throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "a flood of PRIORITY frames");
        }
    }

    private void onReset(int streamId, byte[] payload, int length) throws Http2Exception {
        if (length != 4) {
            throw Http2Exception.connection(ErrorCode.FRAME_SIZE_ERROR, "RST_STREAM of " + length + " bytes");
        }
        if (streamId == 0 || streamId > lastStreamId) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "RST_STREAM on an idle stream");
        }
        if (flood.reset()) {
            throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "too many streams reset (rapid reset)");
        }
        Http2Stream stream = streams.get(streamId);
        if (stream != null) {
            // The client cancelled: its exchange ends (the upstream's work for it with it).
            observer.streamReset(true, ErrorCode.nameOf((payload[0] & 0xff) << 24 | (payload[1] & 0xff) << 16
                    | (payload[2] & 0xff) << 8 | payload[3] & 0xff));
            close(stream);
        }
    }

    private void onSettings(int flags, int streamId, byte[] payload, int length) throws Http2Exception {
        if (streamId != 0) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "SETTINGS on a stream");
        }
        if ((flags & Frame.ACK) != 0) {
            if (length != 0) {
                throw Http2Exception.connection(ErrorCode.FRAME_SIZE_ERROR, "SETTINGS ack with a payload");
            }
            return;
        }
        if (length % 6 != 0) {
            throw Http2Exception.connection(ErrorCode.FRAME_SIZE_ERROR, "SETTINGS of " + length + " bytes");
        }
        if (settingsReceived && flood.idleFrame()) {
            throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "a flood of SETTINGS frames");
        }
        settingsReceived = true;
        for (int i = 0; i < length; i += 6) {
            int id = (payload[i] & 0xff) << 8 | payload[i + 1] & 0xff;
            long value = (payload[i + 2] & 0xffL) << 24 | (payload[i + 3] & 0xff) << 16
                    | (payload[i + 4] & 0xff) << 8 | payload[i + 5] & 0xff;
            applySetting(id, value);
        }
        write(frames.settingsAck());
        flushAll();
    }

    private void applySetting(int id, long value) throws Http2Exception {
        switch (id) {
            case Frame.SETTINGS_HEADER_TABLE_SIZE -> encoder.tableSize((int) Math.min(value, Integer.MAX_VALUE));
            case Frame.SETTINGS_ENABLE_PUSH -> {
                if (value > 1) {
                    throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "SETTINGS_ENABLE_PUSH of " + value);
                }
            }
            case Frame.SETTINGS_INITIAL_WINDOW_SIZE -> {
                if (value > Frame.LARGEST_WINDOW) {
                    throw Http2Exception.connection(ErrorCode.FLOW_CONTROL_ERROR, "SETTINGS_INITIAL_WINDOW_SIZE of " + value);
                }
                int delta = (int) value - peerInitialWindow;
                peerInitialWindow = (int) value;
                for (Http2Stream stream : streams.values()) {
                    stream.sendWindow += delta;
                    if (stream.sendWindow > Frame.LARGEST_WINDOW) {
                        throw Http2Exception.connection(ErrorCode.FLOW_CONTROL_ERROR, "a stream's window over 2^31-1");
                    }
                }
            }
            case Frame.SETTINGS_MAX_FRAME_SIZE -> {
                if (value < Frame.DEFAULT_MAX_FRAME_SIZE || value > Frame.LARGEST_MAX_FRAME_SIZE) {
                    throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "SETTINGS_MAX_FRAME_SIZE of " + value);
                }
                peerMaxFrameSize = (int) value;
            }
            default -> {
                // MAX_CONCURRENT_STREAMS (we push nothing), MAX_HEADER_LIST_SIZE (advisory), unknown: ignored.
            }
        }
    }

    private void onPing(int flags, int streamId, byte[] payload, int length) throws Http2Exception {
        if (length != 8) {
            throw Http2Exception.connection(ErrorCode.FRAME_SIZE_ERROR, "PING of " + length + " bytes");
        }
        if (streamId != 0) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "PING on a stream");
        }
        if (flood.idleFrame()) {
            throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "a flood of PING frames");
        }
        if ((flags & Frame.ACK) == 0) {
            long data = 0;
            for (int i = 0; i < 8; i++) {
                data = data << 8 | payload[i] & 0xff;
            }
            write(frames.pingAck(data));
        }
    }

    private void onGoAway(int streamId, byte[] payload, int length) throws Http2Exception {
        if (streamId != 0) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "GOAWAY on a stream");
        }
        if (length < 8) {
            throw Http2Exception.connection(ErrorCode.FRAME_SIZE_ERROR, "GOAWAY of " + length + " bytes");
        }
        // The client opens no more streams; those open are served, then the connection closes.
        observer.goAway(true, ErrorCode.nameOf((payload[4] & 0xff) << 24 | (payload[5] & 0xff) << 16
                | (payload[6] & 0xff) << 8 | payload[7] & 0xff));
        goingAway = true;
        if (streams.isEmpty()) {
            peer.close();
        }
    }

    private void onWindowUpdate(int streamId, byte[] payload, int length) throws Http2Exception {
        if (length != 4) {
            throw Http2Exception.connection(ErrorCode.FRAME_SIZE_ERROR, "WINDOW_UPDATE of " + length + " bytes");
        }
        int increment = (payload[0] & 0x7f) << 24 | (payload[1] & 0xff) << 16 | (payload[2] & 0xff) << 8 | payload[3] & 0xff;
        if (streamId == 0) {
            if (increment == 0) {
                throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "WINDOW_UPDATE of 0");
            }
            connectionSendWindow += increment;
            if (connectionSendWindow > Frame.LARGEST_WINDOW) {
                throw Http2Exception.connection(ErrorCode.FLOW_CONTROL_ERROR, "the connection's window over 2^31-1");
            }
            flushAll();
            return;
        }
        if (streamId > lastStreamId) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "WINDOW_UPDATE on an idle stream");
        }
        Http2Stream stream = streams.get(streamId);
        if (increment == 0) {
            throw Http2Exception.stream(streamId, ErrorCode.PROTOCOL_ERROR, "WINDOW_UPDATE of 0");
        }
        if (stream == null) {
            return;
        }
        stream.sendWindow += increment;
        if (stream.sendWindow > Frame.LARGEST_WINDOW) {
            throw Http2Exception.stream(streamId, ErrorCode.FLOW_CONTROL_ERROR, "the stream's window over 2^31-1");
        }
        flush(stream);
    }

    // ------------------------------------------------------------------ writing

    void writeHeaders(Http2Stream stream, ByteBuffer headerBlock, boolean endStream) {
        write(frames.headers(stream.id, headerBlock, endStream, peerMaxFrameSize));
    }

    void windowUpdate(int streamId, int increment) {
        write(frames.windowUpdate(streamId, increment));
    }

    /** Sends what the windows allow of the stream's queued DATA, and its END_STREAM once all of it went. */
    void flush(Http2Stream stream) {
        while (stream.state().sends()) {
            Buffer next = stream.queued().peek();
            if (next == null) {
                if (stream.endQueued()) {
                    write(frames.dataHeader(stream.id, 0, true));
                    stream.localEnded();
                }
                break;
            }
            long window = Math.min(stream.sendWindow, connectionSendWindow);
            if (window <= 0) {
                break;
            }
            int n = (int) Math.min(Math.min(next.remaining(), window), peerMaxFrameSize);
            Buffer piece = n == next.remaining() ? stream.queued().poll() : Pieces.slice(next, n);
            boolean end = stream.queued().isEmpty() && stream.endQueued();
            write(frames.dataHeader(stream.id, n, end));
            write(piece);
            connectionSendWindow -= n;
            stream.sent(n);
            if (end) {
                stream.localEnded();
                break;
            }
        }
        stream.roomMayHaveCome();
    }

    private void flushAll() {
        if (streams.isEmpty()) {
            return;
        }
        for (Http2Stream stream : streams.values().toArray(new Http2Stream[0])) {
            if (stream.hasQueued()) {
                flush(stream);
            }
        }
    }

    private void write(Buffer bytes) {
        queues.write(connection, bytes);
    }

    boolean hasRoom() {
        return queues.hasRoom(connection);
    }

    void whenRoom(WriteHandler then) {
        queues.whenRoom(connection, then);
    }

    // ------------------------------------------------------------------ streams' ends

    /** The stream's exchange is over with its answer whole: the stream ends once its DATA is out. */
    void streamEnded(Http2Stream stream) {
        retireIfDone(stream);
    }

    /**
     * A stream with nothing left to do (its exchange over, its answer out) leaves the connection;
     * a request body still coming is declined (RST_STREAM NO_ERROR, RFC 9113 §8.1).
     */
    void retireIfDone(Http2Stream stream) {
        if (stream.exchange() != null || stream.hasQueued() || stream.state().sends()
                || streams.get(stream.id) != stream) {
            return;
        }
        if (stream.state().receives()) {
            write(frames.rstStream(stream.id, ErrorCode.NO_ERROR));
            observer.streamReset(false, ErrorCode.NO_ERROR.name());
        }
        remove(stream);
    }

    /** Resets a stream from our side: RST_STREAM, and its exchange, if any, ends as when a client leaves. */
    void reset(Http2Stream stream, ErrorCode code) {
        if (streams.get(stream.id) != stream) {
            return;
        }
        write(frames.rstStream(stream.id, code));
        observer.streamReset(false, code.name());
        close(stream);
    }

    private void streamError(Http2Exception e) {
        Http2Stream stream = streams.get(e.streamId());
        if (LOG.isDebugEnabled()) {
            LOG.debug("HTTP/2 stream {} from {} reset with {}: {}", e.streamId(), peer.address(), e.code(), e.getMessage());
        }
        if (stream != null) {
            reset(stream, e.code());
        } else {
            write(frames.rstStream(e.streamId(), e.code()));
            observer.streamReset(false, e.code().name());
        }
    }

    private void close(Http2Stream stream) {
        Exchange exchange = stream.detach();
        remove(stream);
        if (exchange != null) {
            exchange.onClientClosed();
        }
    }

    private void remove(Http2Stream stream) {
        streams.remove(stream.id);
        observer.streamClosed();
        stream.closed();
        if (streams.isEmpty() && !closed) {
            if (goingAway || admission.draining()) {
                goAway(ErrorCode.NO_ERROR, "the proxy is stopping");
                peer.close();
            } else {
                peer.idle(true);
            }
        }
    }

    /** A connection error: GOAWAY with its code, then the connection closes (its streams with it). */
    private void connectionError(ErrorCode code, String detail) {
        if (LOG.isDebugEnabled()) {
            LOG.debug("HTTP/2 connection from {} closed with {}: {}", peer.address(), code, detail);
        }
        goAway(code, detail);
        closed = true;
        for (Http2Stream stream : streams.values().toArray(new Http2Stream[0])) {
            close(stream);
        }
        peer.linger();
    }

    /** Tells the client the last stream that will be served (idle timeout, stop, an error). */
    public void goAway(ErrorCode code, String detail) {
        if (!goingAway || code != ErrorCode.NO_ERROR) {
            goingAway = true;
            write(frames.goAway(lastStreamId, code, detail));
            observer.goAway(false, code.name());
        }
    }

    /** No stream is open: the connection may be closed for being idle. */
    public boolean idle() {
        return streams.isEmpty();
    }

    /** The connection closed: every stream's exchange ends as when its client leaves. */
    public void onClosed() {
        closed = true;
        reader.release();
        reads.discard();
        for (Http2Stream stream : streams.values().toArray(new Http2Stream[0])) {
            close(stream);
        }
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
