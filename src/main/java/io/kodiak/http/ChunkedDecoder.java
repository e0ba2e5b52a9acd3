package io.kodiak.http;

import org.glassfish.grizzly.Buffer;

/**
 * A strict decoder of the chunked transfer coding (RFC 9112 §7.1) for one message body at a time.
 * It walks the framing bytes itself and points its caller at the chunk data, which is passed on
 * as a slice of the buffer it arrived in, never copied:
 * <ul>
 * <li>a chunk is exactly chunk-size octets of data followed by CRLF: one byte more or less, or an
 *     LF alone, is a framing error, never skipped over (the skipped bytes would be a smuggled
 *     request to whoever reads the re-framed body);</li>
 * <li>chunk-size is 1*HEXDIG: leading zeros are accepted, whitespace before the size is not,
 *     whitespace after it only before an extension (BWS ";");</li>
 * <li>chunk extensions are accepted and dropped (RFC 9112 §7.1.1: a recipient MUST ignore the
 *     ones it does not understand; Kodiak re-frames the body, so none is forwarded). Their bytes
 *     must be visible characters, SP or HTAB, and the whole chunk-size line is at most
 *     {@link #MAX_CHUNK_LINE} bytes;</li>
 * <li>the trailer section is checked with the field-line rules of a head, CRLF only, at most
 *     {@code maxTrailerSize} bytes, and dropped.</li>
 * </ul>
 */
public final class ChunkedDecoder {
    /** The longest chunk-size line accepted: size, extensions and CRLF. */
    public static final int MAX_CHUNK_LINE = 4096;
    /** Returned by {@link #next} when the body ended; the buffer's position is just after it. */
    public static final int END = -1;
    private static final long MAX_SIZE_BEFORE_SHIFT = Long.MAX_VALUE >> 4;

    /** Where the decoder stands in the body; each comment names the bytes accepted and the state they lead to. */
    private enum State {
        /** HEXDIG (SIZE). */
        SIZE_START,
        /** HEXDIG (stay), SP or HTAB (SIZE_BWS), ';' (EXTENSION), CR (SIZE_CR). */
        SIZE,
        /** SP or HTAB (stay), ';' (EXTENSION). */
        SIZE_BWS,
        /** VCHAR, obs-text, SP, HTAB (stay), CR (SIZE_CR). */
        EXTENSION,
        /** LF: DATA, or TRAILER after the last chunk (size 0). */
        SIZE_CR,
        /** chunk-size octets, whatever they are (DATA_CR once all are taken). */
        DATA,
        /** CR (DATA_LF). */
        DATA_CR,
        /** LF (SIZE_START). */
        DATA_LF,
        /** Field lines, then CRLF (DONE); see {@link HeadScanner}. */
        TRAILER,
        /** The body ended. */
        DONE
    }

    private final int maxTrailerSize;
    private final HeadScanner trailer = new HeadScanner(HeadScanner.Start.TRAILER_SECTION);
    private State state = State.SIZE_START;
    /** The chunk size being read, then the data octets of the chunk still to come. */
    private long remaining;
    private int lineLength;
    private int trailerLength;

    public ChunkedDecoder(int maxTrailerSize) {
        this.maxTrailerSize = maxTrailerSize;
    }

    /** Ready for a new body. */
    public void reset() {
        state = State.SIZE_START;
        remaining = 0;
        lineLength = 0;
        trailerLength = 0;
        trailer.reset();
    }


    /**
     * Consumes framing bytes from the buffer's position. Returns the number of chunk-data bytes
     * that start at the (new) position, which the caller takes and skips; 0 when every byte was
     * framing and more are needed; or {@link #END} when the body ended. Throws
     * {@link HttpViolationException} on the first byte the framing does not allow.
     */
    public int next(Buffer buffer) {
        if (state == State.DONE) {
            reset();
        }
        int position = buffer.position();
        int limit = buffer.limit();
        while (position < limit) {
            if (state == State.DATA) {
                int available = (int) Math.min(remaining, limit - position);
                remaining -= available;
                if (remaining == 0) {
                    state = State.DATA_CR;
                }
                buffer.position(position);
                return available;
            }
            if (state == State.TRAILER) {
                int end;
                try {
                    end = trailer.scan(buffer, position, limit);
                } catch (HttpViolationException broken) {
                    state = State.DONE;
                    throw broken;
                }
                int scanned = (end < 0 ? limit : end) - position;
                trailerLength += scanned;
                if (trailerLength > maxTrailerSize) {
                    throw fail(Violation.TRAILER_TOO_LARGE);
                }
                if (end < 0) {
                    position = limit;
                    break;
                }
                state = State.DONE;
                buffer.position(end);
                return END;
            }
            step(buffer.get(position++) & 0xff);
        }
        buffer.position(position);
        return 0;
    }

    /** One framing byte outside chunk data and the trailer. */
    private void step(int b) {
        if (state == State.SIZE_START || state == State.SIZE || state == State.SIZE_BWS
                || state == State.EXTENSION || state == State.SIZE_CR) {
            if (++lineLength > MAX_CHUNK_LINE) {
                throw fail(Violation.CHUNK_LINE_TOO_LONG);
            }
        }
        switch (state) {
            case SIZE_START -> {
                int digit = ByteClass.hexValue(b);
                if (digit < 0) {
                    throw fail(Violation.CHUNK_SIZE_SYNTAX);
                }
                remaining = digit;
                state = State.SIZE;
            }
            case SIZE -> {
                int digit = ByteClass.hexValue(b);
                if (digit >= 0) {
                    if (remaining > MAX_SIZE_BEFORE_SHIFT) {
                        throw fail(Violation.CHUNK_SIZE_OVERFLOW);
                    }
                    remaining = (remaining << 4) + digit;
                } else {
                    afterSize(b);
                }
            }
            case SIZE_BWS -> {
                if (b == ';') {
                    state = State.EXTENSION;
                } else if (b != ' ' && b != '\t') {
                    throw fail(Violation.CHUNK_SIZE_SYNTAX);
                }
            }
            case EXTENSION -> {
                if (b == '\r') {
                    state = State.SIZE_CR;
                } else if (!ByteClass.isFieldValueByte(b)) {
                    throw fail(b == '\n' ? Violation.BARE_LF : Violation.CHUNK_SIZE_SYNTAX);
                }
            }
            case SIZE_CR -> {
                if (b != '\n') {
                    throw fail(Violation.BARE_CR);
                }
                lineLength = 0;
                if (remaining == 0) {
                    state = State.TRAILER;
                    trailer.reset();
                } else {
                    state = State.DATA;
                }
            }
            case DATA_CR -> {
                if (b != '\r') {
                    throw fail(Violation.CHUNK_DATA_NOT_TERMINATED);
                }
                state = State.DATA_LF;
            }
            case DATA_LF -> {
                if (b != '\n') {
                    throw fail(Violation.CHUNK_DATA_NOT_TERMINATED);
                }
                state = State.SIZE_START;
            }
            default -> throw new IllegalStateException(state + " is not a framing state");
        }
    }

    /** The first byte after the chunk size's digits. */
    private void afterSize(int b) {
        switch (b) {
            case ';' -> state = State.EXTENSION;
            case ' ', '\t' -> state = State.SIZE_BWS;
            case '\r' -> state = State.SIZE_CR;
            case '\n' -> throw fail(Violation.BARE_LF);
            default -> throw fail(Violation.CHUNK_SIZE_SYNTAX);
        }
    }

    private HttpViolationException fail(Violation violation) {
        // A broken body is never resumed: the connection closes.
        state = State.DONE;
        return new HttpViolationException(violation);
    }
}
