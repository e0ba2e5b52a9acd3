package io.kodiak.support;

import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.http2.hpack.HpackEncoder;

import java.nio.ByteBuffer;

/** HTTP/2 frames and header blocks as bytes, for the test peers that speak raw frames ({@link H2Client}, {@link H2Server}). */
final class H2Frames {
    private H2Frames() {
    }

    /** One frame, header and payload in one array: written in one call, Nagle cannot hold the payload back. */
    static byte[] frame(int type, int flags, int stream, byte[] payload) {
        byte[] frame = new byte[9 + payload.length];
        frame[0] = (byte) (payload.length >>> 16);
        frame[1] = (byte) (payload.length >>> 8);
        frame[2] = (byte) payload.length;
        frame[3] = (byte) type;
        frame[4] = (byte) flags;
        ByteBuffer.wrap(frame, 5, 4).putInt(stream);
        System.arraycopy(payload, 0, frame, 9, payload.length);
        return frame;
    }

    /** {@code meta} HPACK-encoded with {@code encoder} (whose table is the connection's). */
    static byte[] block(HpackEncoder encoder, MetaData meta) {
        ByteBuffer block = ByteBuffer.allocate(64 * 1024);
        try {
            encoder.encode(block, meta);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        block.flip();
        byte[] bytes = new byte[block.remaining()];
        block.get(bytes);
        return bytes;
    }
}
