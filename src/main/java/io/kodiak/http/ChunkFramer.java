package io.kodiak.http;

import io.kodiak.transport.OneWrite;
import io.kodiak.transport.PooledBuffers;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.CompositeBuffer;
import org.glassfish.grizzly.memory.MemoryManager;

import java.nio.charset.StandardCharsets;

/**
 * Frames body data as chunks (RFC 9112 §7.1) for a peer that reads chunked: a size line and a
 * CRLF go around the data, which is copied with them into one array only when small
 * ({@link OneWrite#COPY_LIMIT}), and otherwise chained, never copied. Bodies are re-framed rather than relayed
 * verbatim so that what leaves is always in the one form Kodiak writes: chunk extensions, which
 * were checked on the way in, are dropped (RFC 9112 §7.1.1 allows it), and so are a request's
 * trailers; a response's trailers go in the last chunk ({@link #lastChunk}) when the client asked
 * for them.
 */
public final class ChunkFramer {
    private static final byte[] LAST_CHUNK = "0\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] LAST_AFTER_DATA = "\r\n0\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private ChunkFramer() {
    }

    /** The chunk-size line for {@code size}: lower-case hex digits and CRLF, without a String on the way. */
    private static byte[] sizeLine(int size) {
        int digits = Math.max(1, (Integer.SIZE - Integer.numberOfLeadingZeros(size) + 3) / 4);
        byte[] line = new byte[digits + 2];
        for (int i = digits - 1, v = size; i >= 0; i--, v >>>= 4) {
            line[i] = HEX[v & 0xf];
        }
        line[digits] = '\r';
        line[digits + 1] = '\n';
        return line;
    }

    /** The last chunk with a trailer section: {@code fieldLines} (each ending in CRLF), then the final CRLF. */
    public static Buffer lastChunk(MemoryManager memory, byte[] fieldLines) {
        byte[] out = new byte[3 + fieldLines.length + 2];
        out[0] = '0';
        out[1] = '\r';
        out[2] = '\n';
        System.arraycopy(fieldLines, 0, out, 3, fieldLines.length);
        out[out.length - 2] = '\r';
        out[out.length - 1] = '\n';
        return Buffers.wrap(memory, out);
    }

    /** {@code data} as one chunk; followed by the last chunk when {@code last}. An empty piece is only the end, or nothing. */
    public static Buffer frame(MemoryManager memory, Buffer data, boolean last) {
        int size = data == null ? 0 : data.remaining();
        if (size == 0) {
            return last ? Buffers.wrap(memory, LAST_CHUNK) : null;
        }
        byte[] sizeLine = sizeLine(size);
        byte[] after = last ? LAST_AFTER_DATA : CRLF;
        if (size <= OneWrite.COPY_LIMIT) {
            // Small: one array (Grizzly copies heap bytes for the system call anyway).
            int total = sizeLine.length + size + after.length;
            Buffer chunk;
            if (PooledBuffers.countsSlices(memory)) {
                chunk = memory.allocate(total);
                chunk.put(sizeLine).put(data).put(after).flip();
                chunk.allowBufferDispose(true);
            } else {
                byte[] array = new byte[total];
                System.arraycopy(sizeLine, 0, array, 0, sizeLine.length);
                data.get(array, sizeLine.length, size);
                System.arraycopy(after, 0, array, sizeLine.length + size, after.length);
                chunk = Buffers.wrap(memory, array);
            }
            // Copied: a read buffer handed over whole, or a pooled slice, goes back to its pool now
            // (a heap slice does not allow disposal).
            data.tryDispose();
            return chunk;
        }
        CompositeBuffer framed = CompositeBuffer.newBuffer(memory);
        framed.append(Buffers.wrap(memory, sizeLine));
        framed.append(data);
        framed.append(Buffers.wrap(memory, after));
        // Released once written, the chain releases the data piece (PooledBuffers); the framing
        // arrays do not allow disposal.
        framed.allowBufferDispose(true);
        framed.allowInternalBuffersDispose(true);
        return framed;
    }
}
