package io.kodiak.h2;

import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.MemoryManager;

import java.nio.ByteBuffer;

/**
 * Frames as bytes for the transport, each in one buffer from the connection's memory manager
 * (a DATA frame's payload goes as its own buffer after its header: the body piece is never
 * copied).
 */
public final class FrameWriter {
    private final MemoryManager memory;

    public FrameWriter(MemoryManager memory) {
        this.memory = memory;
    }

    private Buffer start(int length, int type, int flags, int streamId) {
        Buffer out = memory.allocate(Frame.HEADER_LENGTH + length);
        out.put((byte) (length >>> 16)).put((byte) (length >>> 8)).put((byte) length);
        out.put((byte) type).put((byte) flags).putInt(streamId & Integer.MAX_VALUE);
        return out;
    }

    private static Buffer done(Buffer out) {
        out.flip();
        return out;
    }

    /** Our SETTINGS: each pair is an identifier and its value. */
    public Buffer settings(int... pairs) {
        Buffer out = start(pairs.length / 2 * 6, Frame.SETTINGS, 0, 0);
        for (int i = 0; i < pairs.length; i += 2) {
            out.putShort((short) pairs[i]).putInt(pairs[i + 1]);
        }
        return done(out);
    }

    /** The client's connection preface and its SETTINGS (RFC 9113 §3.4), in one buffer. */
    public Buffer preface(int... pairs) {
        Buffer settings = settings(pairs);
        Buffer out = memory.allocate(Frame.PREFACE.length + settings.remaining());
        out.put(Frame.PREFACE).put(settings);
        settings.tryDispose();
        return done(out);
    }

    /** A PING of ours (a keep-alive check), its {@code payload} to come back in the ACK. */
    public Buffer ping(long payload) {
        return done(start(8, Frame.PING, 0, 0).putLong(payload));
    }

    public Buffer settingsAck() {
        return done(start(0, Frame.SETTINGS, Frame.ACK, 0));
    }

    public Buffer pingAck(long payload) {
        return done(start(8, Frame.PING, Frame.ACK, 0).putLong(payload));
    }

    public Buffer windowUpdate(int streamId, int increment) {
        return done(start(4, Frame.WINDOW_UPDATE, 0, streamId).putInt(increment));
    }

    public Buffer rstStream(int streamId, ErrorCode code) {
        return done(start(4, Frame.RST_STREAM, 0, streamId).putInt(code.code));
    }

    public Buffer goAway(int lastStreamId, ErrorCode code, String debug) {
        byte[] text = debug == null ? new byte[0] : debug.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        Buffer out = start(8 + text.length, Frame.GOAWAY, 0, 0);
        out.putInt(lastStreamId).putInt(code.code).put(text);
        return done(out);
    }

    /** The header of a DATA frame whose {@code length} bytes of payload follow as their own buffer. */
    public Buffer dataHeader(int streamId, int length, boolean endStream) {
        return done(start(length, Frame.DATA, endStream ? Frame.END_STREAM : 0, streamId));
    }

    /**
     * A header block as HEADERS and as many CONTINUATION frames as {@code maxFrameSize} (the
     * peer's) asks, in one buffer: nothing may come between them on the connection.
     */
    public Buffer headers(int streamId, ByteBuffer block, boolean endStream, int maxFrameSize) {
        int length = block.remaining();
        int frames = Math.max(1, (length + maxFrameSize - 1) / maxFrameSize);
        Buffer out = memory.allocate(length + frames * Frame.HEADER_LENGTH);
        int left = length;
        for (int i = 0; i < frames; i++) {
            int size = Math.min(left, maxFrameSize);
            left -= size;
            int flags = (left == 0 ? Frame.END_HEADERS : 0) | (i == 0 && endStream ? Frame.END_STREAM : 0);
            out.put((byte) (size >>> 16)).put((byte) (size >>> 8)).put((byte) size);
            out.put((byte) (i == 0 ? Frame.HEADERS : Frame.CONTINUATION)).put((byte) flags).putInt(streamId);
            int end = block.position() + size;
            ByteBuffer part = block.duplicate();
            part.limit(end);
            out.put(part);
            block.position(end);
        }
        return done(out);
    }
}
