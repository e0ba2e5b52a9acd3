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
 *     ones it does not understand; Kodiak re-frames the body, so none is forwarded). They must
 *     follow the grammar exactly ({@code *( BWS ";" BWS name [ BWS "=" BWS ( token /
 *     quoted-string ) ] )}): a parser that reads a quoted string differently, or skips to the next
 *     LF, would end the line elsewhere. The whole chunk-size line is at most
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
        SIZE_START(true),
        /** HEXDIG (stay), SP or HTAB (SIZE_BWS), ';' (EXT_NAME_START), CR (SIZE_CR). */
        SIZE(true),
        /** SP or HTAB (stay), ';' (EXT_NAME_START). */
        SIZE_BWS(true),
        /** SP or HTAB (stay), tchar (EXT_NAME). */
        EXT_NAME_START(true),
        /** tchar (stay), SP or HTAB (EXT_AFTER_NAME), '=' (EXT_VALUE_START), ';' (EXT_NAME_START), CR (SIZE_CR). */
        EXT_NAME(true),
        /** SP or HTAB (stay), '=' (EXT_VALUE_START), ';' (EXT_NAME_START). */
        EXT_AFTER_NAME(true),
        /** SP or HTAB (stay), DQUOTE (EXT_QUOTED), tchar (EXT_TOKEN). */
        EXT_VALUE_START(true),
        /** tchar (stay), SP or HTAB (EXT_AFTER_VALUE), ';' (EXT_NAME_START), CR (SIZE_CR). */
        EXT_TOKEN(true),
        /** qdtext (stay), backslash (EXT_QUOTED_PAIR), DQUOTE (EXT_QUOTE_END). */
        EXT_QUOTED(true),
        /** HTAB, SP, VCHAR, obs-text (EXT_QUOTED). */
        EXT_QUOTED_PAIR(true),
        /** SP or HTAB (EXT_AFTER_VALUE), ';' (EXT_NAME_START), CR (SIZE_CR). */
        EXT_QUOTE_END(true),
        /** SP or HTAB (stay), ';' (EXT_NAME_START). */
        EXT_AFTER_VALUE(true),
        /** LF: DATA, or TRAILER after the last chunk (size 0). */
        SIZE_CR(true),
        /** chunk-size octets, whatever they are (DATA_CR once all are taken). */
        DATA(false),
        /** CR (DATA_LF). */
        DATA_CR(false),
        /** LF (SIZE_START). */
        DATA_LF(false),
        /** Field lines, then CRLF (DONE); see {@link HeadScanner}. */
        TRAILER(false),
        /** The body ended. */
        DONE(false);

        /** A state within the chunk-size line, whose length is bounded. */
        private final boolean sizeLine;

        State(boolean sizeLine) {
            this.sizeLine = sizeLine;
        }
    }

    private final int maxTrailerSize;
    /** Made at the first trailer section: most connections never carry a chunked body. */
    private HeadScanner trailer;
    private State state = State.SIZE_START;
    /** The chunk size being read, then the data octets of the chunk still to come. */
    private long remaining;
    private int lineLength;
    private int trailerLength;

    /** Keeps the trailer section's bytes for {@link #trailers()} (a response's, which may be relayed). */
    private final boolean keepTrailers;
    private byte[] trailerBytes;
    private int trailerKept;

    public ChunkedDecoder(int maxTrailerSize) {
        this(maxTrailerSize, false);
    }

    public ChunkedDecoder(int maxTrailerSize, boolean keepTrailers) {
        this.maxTrailerSize = maxTrailerSize;
        this.keepTrailers = keepTrailers;
    }

    /**
     * After the body's end: its trailer fields, checked by the field-line rules as they were read;
     * null when there were none, or they are not kept.
     */
    public Trailers trailers() {
        if (!keepTrailers || state != State.DONE || trailerKept <= 2) {
            return null;
        }
        Trailers fields = new Trailers();
        int line = 0;
        for (int i = 0; i + 1 < trailerKept; i++) {
            if (trailerBytes[i] == '\r' && trailerBytes[i + 1] == '\n') {
                if (i > line) {
                    int colon = line;
                    while (trailerBytes[colon] != ':') {
                        colon++;
                    }
                    int from = Ascii.skipOws(trailerBytes, colon + 1, i);
                    fields.add(new String(trailerBytes, line, colon - line, java.nio.charset.StandardCharsets.ISO_8859_1),
                            new String(trailerBytes, from, Ascii.trimOws(trailerBytes, from, i) - from,
                                    java.nio.charset.StandardCharsets.ISO_8859_1));
                }
                line = i + 2;
                i++;
            }
        }
        return fields.isEmpty() ? null : fields;
    }

    private void keep(Buffer buffer, int from, int to) {
        int n = to - from;
        if (trailerBytes == null || trailerKept + n > trailerBytes.length) {
            byte[] larger = new byte[Math.max(64, Math.max(trailerKept + n, trailerBytes == null ? 0 : trailerBytes.length * 2))];
            if (trailerBytes != null) {
                System.arraycopy(trailerBytes, 0, larger, 0, trailerKept);
            }
            trailerBytes = larger;
        }
        for (int i = from; i < to; i++) {
            trailerBytes[trailerKept++] = buffer.get(i);
        }
    }

    /** Ready for a new body. */
    public void reset() {
        state = State.SIZE_START;
        remaining = 0;
        lineLength = 0;
        trailerLength = 0;
        trailerKept = 0;
        if (trailer != null) {
            trailer.reset();
        }
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
                if (keepTrailers) {
                    keep(buffer, position, end < 0 ? limit : end);
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
        if (state.sizeLine && ++lineLength > MAX_CHUNK_LINE) {
            throw fail(Violation.CHUNK_LINE_TOO_LONG);
        }
        boolean whitespace = b == ' ' || b == '\t';
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
                } else if (whitespace) {
                    state = State.SIZE_BWS;
                } else {
                    extensionOrLineEnd(b, false);
                }
            }
            case SIZE_BWS -> {
                if (b == ';') {
                    state = State.EXT_NAME_START;
                } else if (!whitespace) {
                    throw fail(Violation.CHUNK_SIZE_SYNTAX);
                }
            }
            case EXT_NAME_START -> {
                if (ByteClass.isTchar(b)) {
                    state = State.EXT_NAME;
                } else if (!whitespace) {
                    throw fail(Violation.CHUNK_EXTENSION_SYNTAX);
                }
            }
            case EXT_NAME -> {
                if (b == '=') {
                    state = State.EXT_VALUE_START;
                } else if (whitespace) {
                    state = State.EXT_AFTER_NAME;
                } else if (!ByteClass.isTchar(b)) {
                    extensionOrLineEnd(b, true);
                }
            }
            case EXT_AFTER_NAME -> {
                // BWS comes only before ';' or '=': whitespace that runs into the line's end is refused.
                if (b == '=') {
                    state = State.EXT_VALUE_START;
                } else if (b == ';') {
                    state = State.EXT_NAME_START;
                } else if (!whitespace) {
                    throw fail(Violation.CHUNK_EXTENSION_SYNTAX);
                }
            }
            case EXT_VALUE_START -> {
                if (b == '"') {
                    state = State.EXT_QUOTED;
                } else if (ByteClass.isTchar(b)) {
                    state = State.EXT_TOKEN;
                } else if (!whitespace) {
                    throw fail(Violation.CHUNK_EXTENSION_SYNTAX);
                }
            }
            case EXT_TOKEN -> {
                if (whitespace) {
                    state = State.EXT_AFTER_VALUE;
                } else if (!ByteClass.isTchar(b)) {
                    extensionOrLineEnd(b, true);
                }
            }
            case EXT_QUOTED -> {
                if (b == '"') {
                    state = State.EXT_QUOTE_END;
                } else if (b == '\\') {
                    state = State.EXT_QUOTED_PAIR;
                } else if (!ByteClass.isFieldValueByte(b)) {
                    // qdtext: HTAB, SP, visible but DQUOTE and backslash, obs-text; no CR or LF inside the quotes
                    throw fail(Violation.CHUNK_EXTENSION_SYNTAX);
                }
            }
            case EXT_QUOTED_PAIR -> {
                if (!ByteClass.isFieldValueByte(b)) {
                    throw fail(Violation.CHUNK_EXTENSION_SYNTAX);
                }
                state = State.EXT_QUOTED;
            }
            case EXT_QUOTE_END -> {
                if (whitespace) {
                    state = State.EXT_AFTER_VALUE;
                } else {
                    extensionOrLineEnd(b, true);
                }
            }
            case EXT_AFTER_VALUE -> {
                // BWS comes only before ';': whitespace that runs into the line's end is refused.
                if (b == ';') {
                    state = State.EXT_NAME_START;
                } else if (!whitespace) {
                    throw fail(Violation.CHUNK_EXTENSION_SYNTAX);
                }
            }
            case SIZE_CR -> {
                if (b != '\n') {
                    throw fail(Violation.BARE_CR);
                }
                lineLength = 0;
                if (remaining == 0) {
                    state = State.TRAILER;
                    if (trailer == null) {
                        trailer = new HeadScanner(HeadScanner.Start.TRAILER_SECTION);
                    }
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

    /** After the size or an extension: ';' starts an extension, CR ends the line, LF alone or anything else is refused. */
    private void extensionOrLineEnd(int b, boolean inExtension) {
        switch (b) {
            case ';' -> state = State.EXT_NAME_START;
            case '\r' -> state = State.SIZE_CR;
            case '\n' -> throw fail(Violation.BARE_LF);
            default -> throw fail(inExtension ? Violation.CHUNK_EXTENSION_SYNTAX : Violation.CHUNK_SIZE_SYNTAX);
        }
    }

    private HttpViolationException fail(Violation violation) {
        // A broken body is never resumed: the connection closes.
        state = State.DONE;
        return new HttpViolationException(violation);
    }
}
