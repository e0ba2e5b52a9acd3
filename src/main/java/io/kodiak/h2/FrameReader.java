package io.kodiak.h2;

import io.kodiak.transport.Pieces;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.MemoryManager;

/**
 * Splits what a connection reads into frames, however the reads cut them: first the
 * client's preface (on a server's side), then each frame's 9-byte header and payload. A DATA frame that arrived whole
 * is handed on as a slice of the read buffer (no copy); one cut across reads is gathered into a
 * buffer of its own. Other frames are gathered into one array, reused. A frame longer than our
 * SETTINGS_MAX_FRAME_SIZE is a connection error (FRAME_SIZE_ERROR) before any of it is kept.
 */
public final class FrameReader {
    /** What the reader hands on. */
    public interface Listener {
        /** A whole frame other than DATA, its payload in {@code payload[0, length)} (valid during the call). */
        public void onFrame(int type, int flags, int streamId, byte[] payload, int length) throws Http2Exception;

        /** A DATA frame; {@code payload} is all of its payload (padding included), the listener's to release. */
        public void onData(int flags, int streamId, Buffer payload) throws Http2Exception;
    }

    private final MemoryManager memory;
    private final int maxFrameSize;
    private int prefaceRead;
    private final byte[] header = new byte[Frame.HEADER_LENGTH];
    private int headerRead;
    private int length;
    private int type;
    private int flags;
    private int streamId;
    private byte[] payload = new byte[256];
    private int payloadRead;
    /** A DATA frame's payload being gathered across reads. */
    private Buffer data;

    /** The server's side: the client's preface comes first. */
    public FrameReader(MemoryManager memory, int maxFrameSize) {
        this(memory, maxFrameSize, true);
    }

    /** {@code preface}: false on the client's side, whose peer opens with its SETTINGS frame alone. */
    public FrameReader(MemoryManager memory, int maxFrameSize, boolean preface) {
        this.memory = memory;
        this.maxFrameSize = maxFrameSize;
        this.prefaceRead = preface ? 0 : Frame.PREFACE.length;
    }

    /** The preface was read whole. */
    boolean prefaceDone() {
        return prefaceRead == Frame.PREFACE.length;
    }

    /**
     * Reads from {@code in} until one frame was handed on or the bytes ran out; true when a frame
     * was handed on (the caller may stop between frames: its output is full).
     */
    public boolean next(FilterChainContext ctx, Buffer in, Listener listener) throws Http2Exception {
        while (prefaceRead < Frame.PREFACE.length) {
            if (!in.hasRemaining()) {
                return false;
            }
            if (in.get() != Frame.PREFACE[prefaceRead++]) {
                throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "not the HTTP/2 client preface");
            }
        }
        if (headerRead < Frame.HEADER_LENGTH) {
            int n = Math.min(Frame.HEADER_LENGTH - headerRead, in.remaining());
            in.get(header, headerRead, n);
            headerRead += n;
            if (headerRead < Frame.HEADER_LENGTH) {
                return false;
            }
            startFrame();
            if (type == Frame.DATA && in.remaining() >= length) {
                Buffer whole = length == 0 ? Buffers.EMPTY_BUFFER : Pieces.take(ctx, in, length);
                reset();
                listener.onData(flags, streamId, whole);
                return true;
            }
        }
        if (type == Frame.DATA) {
            if (data == null) {
                data = memory.allocate(length);
            }
            int n = Math.min(length - data.position(), in.remaining());
            Buffer part = in.slice(in.position(), in.position() + n);
            data.put(part);
            part.tryDispose();
            in.position(in.position() + n);
            if (data.position() < length) {
                return false;
            }
            Buffer whole = data;
            whole.flip();
            data = null;
            reset();
            listener.onData(flags, streamId, whole);
            return true;
        }
        int n = Math.min(length - payloadRead, in.remaining());
        in.get(payload, payloadRead, n);
        payloadRead += n;
        if (payloadRead < length) {
            return false;
        }
        int frameType = type;
        int frameFlags = flags;
        int frameStream = streamId;
        int frameLength = length;
        reset();
        listener.onFrame(frameType, frameFlags, frameStream, payload, frameLength);
        return true;
    }

    private void startFrame() throws Http2Exception {
        length = (header[0] & 0xff) << 16 | (header[1] & 0xff) << 8 | header[2] & 0xff;
        type = header[3] & 0xff;
        flags = header[4] & 0xff;
        streamId = ((header[5] & 0x7f) << 24 | (header[6] & 0xff) << 16 | (header[7] & 0xff) << 8 | header[8] & 0xff);
        if (length > maxFrameSize) {
            throw Http2Exception.connection(ErrorCode.FRAME_SIZE_ERROR,
                    Frame.typeName(type) + " frame of " + length + " bytes, over SETTINGS_MAX_FRAME_SIZE " + maxFrameSize);
        }
        if (type != Frame.DATA && payload.length < length) {
            payload = new byte[Math.max(length, Math.min(maxFrameSize, payload.length * 2))];
        }
        payloadRead = 0;
    }

    private void reset() {
        headerRead = 0;
        payloadRead = 0;
    }

    /** The connection is gone: a DATA payload being gathered goes back to its pool. */
    public void release() {
        if (data != null) {
            data.tryDispose();
            data = null;
        }
    }
}
