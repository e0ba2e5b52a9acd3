package io.kodiak.exchange;

import io.kodiak.http.ChunkFramer;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.CompositeBuffer;
import org.glassfish.grizzly.memory.MemoryManager;

/**
 * The request's body on its way upstream: how much the client sent ({@link RequestProgress},
 * bytes), its pieces framed as the upstream reads them, and what is held while no upstream
 * connection is ready yet (sent with the head in one write).
 */
final class RequestBody {
    /** Held while no upstream connection is ready yet; beyond it, client reads pause. */
    private static final int MAX_HELD_BEFORE_CONNECTED = 64 * 1024;

    private final boolean chunked;
    private final MemoryManager memory;
    private RequestProgress progress;
    private long bytes;
    private CompositeBuffer held;

    RequestBody(boolean hasBody, boolean chunked, MemoryManager memory) {
        this.progress = RequestProgress.of(hasBody);
        this.chunked = chunked;
        this.memory = memory;
    }

    /** A piece from the client, counted (a tunnel's bytes after a 101 too). Returns the total so far. */
    long count(Buffer piece) {
        bytes += piece.remaining();
        return bytes;
    }

    /** The client sent the last of the body. */
    void ended() {
        progress = progress.received();
    }

    /** {@code piece} as the upstream reads it: a chunk (and the last chunk after the last piece), or as it came. Null: nothing to write. */
    Buffer framed(Buffer piece, boolean last) {
        return chunked ? ChunkFramer.frame(memory, piece, last) : piece;
    }

    /** Keeps {@code out} until a connection is ready; true when so much is held that client reads should pause. */
    boolean hold(Buffer out) {
        if (out != null) {
            if (held == null) {
                held = CompositeBuffer.newBuffer(memory);
                // Let go of as one write (OneWrite): its pieces with it.
                held.allowBufferDispose(true);
                held.allowInternalBuffersDispose(true);
            }
            held.append(out);
        }
        return progress == RequestProgress.RECEIVING && held != null && held.remaining() > MAX_HELD_BEFORE_CONNECTED;
    }

    /** What was held, handed over once (null when nothing was). */
    Buffer takeHeld() {
        Buffer taken = held;
        held = null;
        return taken;
    }

    boolean complete() {
        return progress == RequestProgress.RECEIVED;
    }

    long bytes() {
        return bytes;
    }

    /**
     * Nothing but the head went upstream, and nothing else is to come: the request can be written
     * again whole (no body bytes, and no chunked framing either: even an empty chunked body's last
     * chunk left separately and would be missing from a second copy).
     */
    boolean onlyHeadWritten() {
        return complete() && bytes == 0 && !chunked;
    }
}
