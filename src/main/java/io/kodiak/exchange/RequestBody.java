package io.kodiak.exchange;

import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.CompositeBuffer;
import org.glassfish.grizzly.memory.MemoryManager;

/**
 * The request's body on its way upstream: how much the client sent ({@link RequestProgress},
 * bytes), and what is held while no upstream stream is ready yet (sent with the head in one write;
 * the stream frames it).
 */
final class RequestBody {
    /** Held while no upstream connection is ready yet; beyond it, client reads pause. */
    private static final int MAX_HELD_BEFORE_CONNECTED = 64 * 1024;

    /** The body's end is sent apart from its bytes (a chunked body's last chunk). */
    private final boolean endSentApart;
    private final MemoryManager memory;
    private RequestProgress progress;
    private long bytes;
    private CompositeBuffer held;

    RequestBody(boolean hasBody, boolean endSentApart, MemoryManager memory) {
        this.progress = RequestProgress.of(hasBody);
        this.endSentApart = endSentApart;
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

    /** Keeps {@code out} until a stream is ready; true when so much is held that client reads should pause. */
    boolean hold(Buffer out) {
        if (out != null && out.hasRemaining()) {
            if (held == null) {
                held = CompositeBuffer.newBuffer(memory);
                // Let go of as one write (OneWrite): its pieces with it.
                held.allowBufferDispose(true);
                held.allowInternalBuffersDispose(true);
            }
            held.append(out);
        } else if (out != null) {
            out.tryDispose();
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
     * again whole (no body bytes, and no end sent apart either: even an empty chunked body's last
     * chunk left separately and would be missing from a second copy).
     */
    boolean onlyHeadWritten() {
        return complete() && bytes == 0 && !endSentApart;
    }
}
