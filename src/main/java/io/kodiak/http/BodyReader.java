package io.kodiak.http;

import org.glassfish.grizzly.Buffer;

/**
 * Where one message body ends (RFC 9112 §6.3), as a small state machine reused for every message
 * of a connection. It never copies: it tells its caller how many data bytes start at the buffer's
 * position, and the caller passes them on as a slice of that buffer.
 */
public final class BodyReader {
    /** Returned by {@link #next} when the body ended with framing bytes (the last chunk) rather than data. */
    public static final int END = ChunkedDecoder.END;

    /** Each state names how the body is delimited; {@link #DONE} once it has ended. */
    public enum State {
        /** Content-Length octets (LENGTH, then DONE with the last one). */
        LENGTH,
        /** The chunked transfer coding, checked by {@link ChunkedDecoder} (DONE after the last chunk and trailers). */
        CHUNKED,
        /** Everything until the connection closes (responses only; DONE on the close). */
        UNTIL_CLOSE,
        /** No body, or the body ended. */
        DONE
    }

    private final int maxTrailerSize;
    /**
     * Made at the connection's first chunked body: most connections never see one, and every
     * connection, idle or waiting, has a reader on each side.
     */
    private ChunkedDecoder chunks;
    private State state = State.DONE;
    private long remaining;

    /** A response's body keeps a chunked trailer section, which may be relayed. */
    private final boolean keepTrailers;
    /** The body being read (or just ended) is chunked. */
    private boolean chunked;

    /** {@code maxTrailerSize}: the bound of a chunked body's trailer section. */
    public BodyReader(int maxTrailerSize) {
        this(maxTrailerSize, false);
    }

    /** {@code keepTrailers}: {@link #trailers()} gives a chunked body's trailer fields at its end. */
    public BodyReader(int maxTrailerSize, boolean keepTrailers) {
        this.maxTrailerSize = maxTrailerSize;
        this.keepTrailers = keepTrailers;
    }

    /** At a chunked body's end: its trailer fields when they are kept and there were any, else null. */
    public Trailers trailers() {
        return chunked ? chunks.trailers() : null;
    }

    /** A body delimited by {@code length} octets (none when 0). */
    public void expectLength(long length) {
        remaining = length;
        chunked = false;
        state = length > 0 ? State.LENGTH : State.DONE;
    }

    public void expectChunked() {
        if (chunks == null) {
            chunks = new ChunkedDecoder(maxTrailerSize, keepTrailers);
        }
        chunks.reset();
        chunked = true;
        state = State.CHUNKED;
    }

    public void expectUntilClose() {
        chunked = false;
        state = State.UNTIL_CLOSE;
    }

    public void expectNone() {
        chunked = false;
        state = State.DONE;
    }

    public boolean isDone() {
        return state == State.DONE;
    }

    /** The connection closed: a close-delimited body is complete, any other is cut short (false). */
    public boolean closeEnds() {
        if (state == State.UNTIL_CLOSE) {
            state = State.DONE;
            return true;
        }
        return state == State.DONE;
    }

    /**
     * Consumes framing bytes from the buffer's position and returns how many data bytes start
     * there (the caller takes them and moves the position past them), 0 when more bytes are
     * needed, or {@link #END} when the body ended on framing. After each call {@link #isDone()}
     * says whether the body is complete. Throws {@link HttpViolationException} on broken framing.
     */
    public int next(Buffer buffer) {
        switch (state) {
            case LENGTH -> {
                int n = (int) Math.min(remaining, buffer.remaining());
                remaining -= n;
                if (remaining == 0) {
                    state = State.DONE;
                }
                return n;
            }
            case CHUNKED -> {
                int n = chunks.next(buffer);
                if (n == ChunkedDecoder.END) {
                    state = State.DONE;
                }
                return n;
            }
            case UNTIL_CLOSE -> {
                return buffer.remaining();
            }
            default -> {
                return 0;
            }
        }
    }
}
