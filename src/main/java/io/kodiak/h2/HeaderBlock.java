package io.kodiak.h2;

import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.http2.hpack.HpackDecoder;
import org.eclipse.jetty.http2.hpack.HpackException;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * One header block being gathered across a HEADERS frame and its CONTINUATIONs, bounded across
 * them (CONTINUATION floods), then decoded whole. A block is always decoded, even for a stream
 * that will be reset: HPACK's dynamic table is the connection's, and a block left undecoded would
 * put it out of step with the client's.
 */
public final class HeaderBlock {
    private final int limit;
    private byte[] bytes = new byte[1024];
    private int length;
    /** The stream the block is for; 0 when no block is open. */
    private int streamId;
    private boolean endsStream;
    /** A stream error found in the HEADERS frame itself, raised once the block is decoded. */
    private Http2Exception deferred;

    public HeaderBlock(int limit) {
        this.limit = limit;
    }

    /** A block is open: only its CONTINUATION may come next. */
    public boolean open() {
        return streamId != 0;
    }

    public int streamId() {
        return streamId;
    }

    /** The HEADERS frame had END_STREAM: no body follows. */
    public boolean endsStream() {
        return endsStream;
    }

    /** A HEADERS frame: its padding and priority taken off; true when the block is whole (END_HEADERS). */
    public boolean headers(int flags, int stream, byte[] payload, int frameLength) throws Http2Exception {
        if (stream == 0) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "HEADERS on stream 0");
        }
        int from = 0;
        int to = frameLength;
        if ((flags & Frame.PADDED) != 0) {
            if (frameLength < 1) {
                throw Http2Exception.connection(ErrorCode.FRAME_SIZE_ERROR, "padded HEADERS without its pad length");
            }
            from = 1;
            to -= payload[0] & 0xff;
        }
        deferred = null;
        if ((flags & Frame.PRIORITY_FLAG) != 0) {
            if (to - from < 5) {
                throw Http2Exception.connection(ErrorCode.FRAME_SIZE_ERROR, "HEADERS too short for its priority");
            }
            int dependency = (payload[from] & 0x7f) << 24 | (payload[from + 1] & 0xff) << 16
                    | (payload[from + 2] & 0xff) << 8 | payload[from + 3] & 0xff;
            from += 5;
            if (dependency == stream) {
                deferred = Http2Exception.stream(stream, ErrorCode.PROTOCOL_ERROR, "a stream that depends on itself");
            }
        }
        if (to < from) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "HEADERS padding longer than the frame");
        }
        streamId = stream;
        endsStream = (flags & Frame.END_STREAM) != 0;
        length = 0;
        append(payload, from, to);
        return (flags & Frame.END_HEADERS) != 0;
    }

    /** A CONTINUATION frame; true when the block is whole. */
    public boolean continuation(int flags, int stream, byte[] payload, int frameLength) throws Http2Exception {
        if (streamId == 0 || stream != streamId) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "CONTINUATION without the HEADERS before it");
        }
        append(payload, 0, frameLength);
        return (flags & Frame.END_HEADERS) != 0;
    }

    private void append(byte[] payload, int from, int to) throws Http2Exception {
        int n = to - from;
        if (length + n > limit) {
            throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM,
                    "a header block over " + limit + " bytes (twice max-header-size)");
        }
        if (length + n > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.min(limit, Math.max(bytes.length * 2, length + n)));
        }
        System.arraycopy(payload, from, bytes, length, n);
        length += n;
    }

    /**
     * The whole block decoded; the block is closed. A stream error (a malformed field, or one the
     * HEADERS frame carried) is thrown after the decoding, so the table stays in step; a decoding
     * failure is a connection error (COMPRESSION_ERROR).
     */
    public MetaData decode(HpackDecoder decoder) throws Http2Exception {
        int stream = streamId;
        streamId = 0;
        MetaData fields;
        try {
            fields = decoder.decode(ByteBuffer.wrap(bytes, 0, length));
        } catch (HpackException.StreamException e) {
            throw Http2Exception.stream(stream, ErrorCode.PROTOCOL_ERROR, "malformed header block: " + e.getMessage());
        } catch (HpackException.SessionException e) {
            throw Http2Exception.connection(ErrorCode.COMPRESSION_ERROR, "HPACK: " + e.getMessage());
        }
        if (deferred != null) {
            Http2Exception error = deferred;
            deferred = null;
            throw error;
        }
        return fields;
    }
}
