package io.kodiak.http;

import org.glassfish.grizzly.Buffer;

/**
 * The codec's lexer for one message head (request line or status line, then field lines) or for
 * a chunked body's trailer section. It looks at every byte once and throws {@link
 * HttpViolationException} on the first byte HTTP/1.1 does not allow where it stands: a control
 * byte or whitespace in the request target, a name that is not a token, CR, LF, NUL or another
 * control in a field value, a bare CR, obsolete line folding. Crossing each delimiter it records
 * where the part it ends lies in a {@link HeadLayout} (when given one): positions, never copies.
 * It keeps only its state between calls, so a head may arrive in any number of pieces.
 *
 * <p>Line ends: CRLF, or (RFC 9112 §2.2 "a recipient MAY recognize a single LF") LF alone in a
 * head, as nginx does; a trailer section, part of chunked framing, demands CRLF. A CR that is
 * not immediately followed by LF is always a violation.
 */
public final class HeadScanner {
    /** What the scanned bytes begin with. */
    public enum Start { REQUEST_LINE, STATUS_LINE, TRAILER_SECTION }

    /** Where the scanner stands; each comment names the bytes accepted and the state they lead to. */
    private enum State {
        /** tchar (stay), SP (TARGET). */
        METHOD,
        /** VCHAR (stay), SP (REQUEST_VERSION). */
        TARGET,
        /** "HTTP/" DIGIT "." DIGIT, then CR (LINE_CR) or LF (FIELD_START). */
        REQUEST_VERSION,
        /** "HTTP/" DIGIT "." DIGIT, then SP (STATUS_CODE). */
        STATUS_VERSION,
        /** 3DIGIT, then SP (REASON), CR (LINE_CR) or LF (FIELD_START). */
        STATUS_CODE,
        /** HTAB, SP, VCHAR, obs-text (stay), CR (LINE_CR), LF (FIELD_START). */
        REASON,
        /** LF (FIELD_START). */
        LINE_CR,
        /** tchar (NAME), CR (END_CR), LF (DONE). */
        FIELD_START,
        /** tchar (stay), ':' (VALUE). */
        NAME,
        /** HTAB, SP, VCHAR, obs-text (stay), CR (VALUE_CR), LF (FIELD_START). */
        VALUE,
        /** LF (FIELD_START). */
        VALUE_CR,
        /** LF (DONE). */
        END_CR,
        /** The head ended; nothing more is scanned. */
        DONE
    }

    private static final byte[] HTTP_SLASH = {'H', 'T', 'T', 'P', '/'};

    private final Start start;
    private final Violation bareLf;
    /** Where the parts of the head are recorded, or null when only the bytes are checked. */
    private final HeadLayout layout;
    private State state;
    /** The index of the byte being stepped, for {@link #layout}. */
    private int at;
    /** Bytes matched so far in the element being scanned (method, target, version, status code). */
    private int count;
    /** The status code of a status line, as its digits arrive. */
    private int status;

    /** A scanner that only checks the bytes (a trailer section). */
    public HeadScanner(Start start) {
        this(start, null);
    }

    /** A scanner that also records where each part of the head lies in {@code layout}. */
    public HeadScanner(Start start, HeadLayout layout) {
        this.start = start;
        this.bareLf = start == Start.TRAILER_SECTION ? Violation.BARE_LF : null;
        this.layout = layout;
        reset();
    }

    /** True while the start line is being scanned (a head too large there is a request line too long: 414). */
    public boolean inStartLine() {
        return switch (state) {
            case METHOD, TARGET, REQUEST_VERSION, STATUS_VERSION, STATUS_CODE, REASON -> true;
            default -> false;
        };
    }

    /** Ready for a new head. */
    public void reset() {
        if (layout != null) {
            layout.clear(-1);
        }
        state = switch (start) {
            case REQUEST_LINE -> State.METHOD;
            case STATUS_LINE -> State.STATUS_VERSION;
            case TRAILER_SECTION -> State.FIELD_START;
        };
        count = 0;
        status = 0;
    }

    public boolean isDone() {
        return state == State.DONE;
    }

    /**
     * Scans {@code buffer} from {@code from} to {@code to}: the index just after the head's last
     * LF when the head ends there, or -1 when every byte was accepted and more are needed.
     */
    public int scan(Buffer buffer, int from, int to) {
        if (buffer.hasArray()) {
            return scan(buffer.array(), buffer.arrayOffset(), from, to);
        }
        for (int i = from; i < to; i++) {
            at = i;
            if (step(buffer.get(i) & 0xff)) {
                return i + 1;
            }
        }
        return -1;
    }

    /** As {@link #scan(Buffer, int, int)}, over {@code array} from index {@code from} to {@code to}. */
    public int scan(byte[] array, int from, int to) {
        return scan(array, 0, from, to);
    }

    /**
     * As {@link #scan(Buffer, int, int)} over a heap buffer's array (indexes relative to
     * {@code base}). Runs of ordinary bytes, which make up most of a head (a value, a name, the
     * target), are taken by a table lookup each without going through the state switch.
     */
    private int scan(byte[] array, int base, int from, int to) {
        int i = from;
        while (i < to) {
            int b = array[base + i] & 0xff;
            if (state == State.VALUE || state == State.REASON) {
                while (ByteClass.isFieldValueByte(b)) {
                    if (++i == to) {
                        return -1;
                    }
                    b = array[base + i] & 0xff;
                }
            } else if (state == State.NAME) {
                while (ByteClass.isTchar(b)) {
                    if (++i == to) {
                        return -1;
                    }
                    b = array[base + i] & 0xff;
                }
            } else if (state == State.TARGET) {
                while (ByteClass.isTargetChar(b)) {
                    count++;
                    if (++i == to) {
                        return -1;
                    }
                    b = array[base + i] & 0xff;
                }
            }
            at = i;
            if (step(b)) {
                return i + 1;
            }
            i++;
        }
        return -1;
    }

    /** One byte; true when it ended the head. */
    private boolean step(int b) {
        switch (state) {
            case METHOD -> {
                if (ByteClass.isTchar(b)) {
                    count++;
                } else if (b == ' ' && count > 0) {
                    next(State.TARGET);
                } else {
                    throw violation(Violation.METHOD_NOT_TOKEN);
                }
            }
            case TARGET -> {
                if (ByteClass.isTargetChar(b)) {
                    count++;
                } else if (b == ' ' && count > 0) {
                    next(State.REQUEST_VERSION);
                } else if (b == ' ' || b == '\r' || b == '\n') {
                    // an empty target (two spaces), or a line with no version (HTTP/0.9)
                    throw violation(Violation.REQUEST_LINE_SYNTAX);
                } else {
                    throw violation(Violation.TARGET_CHARACTER);
                }
            }
            case REQUEST_VERSION -> {
                if (count < 8) {
                    version(b, Violation.VERSION_SYNTAX);
                } else if (b == '\r') {
                    next(State.LINE_CR);
                } else if (b == '\n') {
                    next(State.FIELD_START);
                } else {
                    throw violation(Violation.VERSION_SYNTAX);
                }
            }
            case STATUS_VERSION -> {
                if (count < 8) {
                    version(b, Violation.STATUS_LINE_SYNTAX);
                } else if (b == ' ') {
                    next(State.STATUS_CODE);
                } else {
                    throw violation(Violation.STATUS_LINE_SYNTAX);
                }
            }
            case STATUS_CODE -> {
                if (count < 3 && ByteClass.isDigit(b)) {
                    count++;
                    status = status * 10 + b - '0';
                } else if (count < 3) {
                    throw violation(Violation.STATUS_LINE_SYNTAX);
                } else if (b == ' ') {
                    next(State.REASON);
                } else {
                    lineEnd(b, Violation.STATUS_LINE_SYNTAX);
                }
            }
            case REASON -> {
                if (!ByteClass.isFieldValueByte(b)) {
                    lineEnd(b, Violation.STATUS_LINE_SYNTAX);
                }
            }
            case LINE_CR, VALUE_CR -> {
                if (b != '\n') {
                    throw violation(state == State.LINE_CR ? Violation.BARE_CR : Violation.FIELD_VALUE_CHARACTER);
                }
                next(State.FIELD_START);
            }
            case FIELD_START -> {
                if (ByteClass.isTchar(b)) {
                    next(State.NAME);
                } else if (b == '\r') {
                    next(State.END_CR);
                } else if (b == '\n') {
                    if (bareLf != null) {
                        throw violation(bareLf);
                    }
                    next(State.DONE);
                    return true;
                } else if (b == ' ' || b == '\t') {
                    // A continuation line, or whitespace before the first field (RFC 9112 §2.2, §5.2).
                    throw violation(Violation.OBS_FOLD);
                } else {
                    throw violation(Violation.FIELD_NAME_NOT_TOKEN);
                }
            }
            case NAME -> {
                if (b == ':') {
                    next(State.VALUE);
                } else if (b == '\r' || b == '\n') {
                    throw violation(Violation.FIELD_LINE_WITHOUT_COLON);
                } else if (!ByteClass.isTchar(b)) {
                    throw violation(Violation.FIELD_NAME_NOT_TOKEN);
                }
            }
            case VALUE -> {
                if (!ByteClass.isFieldValueByte(b)) {
                    if (b == '\r') {
                        next(State.VALUE_CR);
                    } else if (b == '\n' && bareLf == null) {
                        next(State.FIELD_START);
                    } else {
                        throw violation(b == '\n' ? bareLf : Violation.FIELD_VALUE_CHARACTER);
                    }
                }
            }
            case END_CR -> {
                if (b != '\n') {
                    throw violation(Violation.BARE_CR);
                }
                next(State.DONE);
                return true;
            }
            case DONE -> throw new IllegalStateException("scanned past the end of the head");
        }
        return false;
    }

    /** One byte of "HTTP/" DIGIT "." DIGIT, at position {@link #count}. */
    private void version(int b, Violation otherwise) {
        boolean ok = count < 5 ? b == HTTP_SLASH[count] : count == 6 ? b == '.' : ByteClass.isDigit(b);
        if (!ok) {
            throw violation(otherwise);
        }
        count++;
    }

    /** The end of a start line: CR, or LF alone. */
    private void lineEnd(int b, Violation otherwise) {
        if (b == '\r') {
            next(State.LINE_CR);
        } else if (b == '\n') {
            next(State.FIELD_START);
        } else {
            throw violation(otherwise);
        }
    }

    private void next(State to) {
        if (layout != null) {
            record(to);
        }
        state = to;
        count = 0;
    }

    /** The delimiter at {@link #at} ends one part of the head and starts the next. */
    private void record(State to) {
        switch (state) {
            case METHOD -> layout.methodEnd = at;
            case TARGET -> layout.targetEnd = at;
            case STATUS_CODE -> {
                layout.status = status;
                if (to == State.REASON) {
                    layout.reasonStart = at + 1;
                } else {
                    layout.reasonStart = at;
                    layout.lineEnd = at;
                }
            }
            case REQUEST_VERSION, REASON -> layout.lineEnd = at;
            case FIELD_START -> {
                if (to == State.NAME) {
                    layout.markFieldStart(at);
                } else if (to == State.DONE) {
                    layout.end = at + 1;
                }
            }
            case NAME -> layout.markColon(at);
            case VALUE -> layout.markValueEnd(at);
            case END_CR -> layout.end = at + 1;
            default -> {
            }
        }
    }

    private HttpViolationException violation(Violation violation) {
        // A failed head is never resumed: the connection closes after the answer.
        state = State.DONE;
        return new HttpViolationException(violation);
    }
}
