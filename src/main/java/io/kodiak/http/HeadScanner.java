package io.kodiak.http;

import org.glassfish.grizzly.Buffer;

/**
 * A strict lexer for one message head (request line or status line, then field lines) or for a
 * chunked body's trailer section. It looks at every byte once, before any lenient parser does,
 * and throws {@link HttpViolationException} on the first byte HTTP/1.1 does not allow where it
 * stands: a control byte or whitespace in the request target, a name that is not a token, CR, LF,
 * NUL or another control in a field value, a bare CR, obsolete line folding. It keeps no copy of
 * anything, only its state, so a head may arrive in any number of pieces.
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
        /** After a 100 status line's CR: LF (CONTINUE_EMPTY_CR). */
        CONTINUE_LF,
        /** CR (CONTINUE_EMPTY_LF): a 100 Continue carries no fields. */
        CONTINUE_EMPTY_CR,
        /** LF: the final response's status line follows, scanned as part of the same head (STATUS_VERSION). */
        CONTINUE_EMPTY_LF,
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
    private State state;
    /** Bytes matched so far in the element being scanned (method, target, version, status code). */
    private int count;
    /** The status code of a status line, as its digits arrive. */
    private int status;
    /** Where {@link #scanArrived} resumes in a head that accumulates in one buffer. */
    private int resumeAt = -1;

    public HeadScanner(Start start) {
        this.start = start;
        this.bareLf = start == Start.TRAILER_SECTION ? Violation.BARE_LF : null;
        reset();
    }

    /** Ready for a new head. */
    public void reset() {
        state = switch (start) {
            case REQUEST_LINE -> State.METHOD;
            case STATUS_LINE -> State.STATUS_VERSION;
            case TRAILER_SECTION -> State.FIELD_START;
        };
        count = 0;
        status = 0;
        resumeAt = -1;
    }

    public boolean isDone() {
        return state == State.DONE;
    }

    /**
     * For a head that accumulates in one buffer until it is complete (as Grizzly keeps the bytes
     * it has not parsed yet and appends the next read): scans what arrived since the last call, up
     * to {@code maxHeadEnd} at most (past it, the parser's "too large" is the answer). A head that
     * ended earlier is taken as finished, and a new one starts at the buffer's position.
     */
    public void scanArrived(Buffer buffer, int maxHeadEnd) {
        int limit = Math.min(buffer.limit(), maxHeadEnd);
        if (state == State.DONE || resumeAt < 0) {
            reset();
            resumeAt = buffer.position();
        }
        int end = scan(buffer, resumeAt, limit);
        resumeAt = end < 0 ? Math.max(resumeAt, limit) : end;
    }

    /**
     * Called when the parser behind this scanner found the end of the head at {@code headEnd}:
     * the scanner must have found it there too. Both accept only CRLF or LF line ends and no bare
     * CR, so they agree; where they do not, the message is refused rather than framed two ways.
     * A scan that stopped at {@code maxHeadEnd} is a head too large (Grizzly's parser may read
     * one byte past its own limit).
     */
    public void confirmEnd(int headEnd, int maxHeadEnd) {
        if (state == State.DONE && resumeAt == headEnd) {
            return;
        }
        boolean atLimit = state != State.DONE && resumeAt >= maxHeadEnd;
        throw violation(atLimit ? Violation.HEAD_TOO_LARGE : Violation.HEAD_END_DISAGREEMENT);
    }

    /** The bytes before the scan's place were dropped from the front of the buffer: indexes move back by {@code dropped}. */
    public void shift(int dropped) {
        resumeAt -= dropped;
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
            if (step(buffer.get(i) & 0xff)) {
                return i + 1;
            }
        }
        return -1;
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
                    statusLineEnd(b);
                }
            }
            case REASON -> {
                if (!ByteClass.isFieldValueByte(b)) {
                    statusLineEnd(b);
                }
            }
            case CONTINUE_LF, CONTINUE_EMPTY_LF -> {
                if (b != '\n') {
                    throw violation(Violation.CONTINUE_NOT_BARE);
                }
                if (state == State.CONTINUE_LF) {
                    next(State.CONTINUE_EMPTY_CR);
                } else {
                    status = 0;
                    next(State.STATUS_VERSION);
                }
            }
            case CONTINUE_EMPTY_CR -> {
                if (b != '\r') {
                    throw violation(Violation.CONTINUE_NOT_BARE);
                }
                next(State.CONTINUE_EMPTY_LF);
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

    /**
     * The end of a status line. A 100 Continue is read by Grizzly's client parser as part of the
     * final response's head, assuming a bare CRLF after its status line and skipping two bytes:
     * so it must be exactly that, and the scan goes on to the final response's status line.
     */
    private void statusLineEnd(int b) {
        if (status != 100) {
            lineEnd(b, Violation.STATUS_LINE_SYNTAX);
        } else if (b == '\r') {
            next(State.CONTINUE_LF);
        } else {
            throw violation(Violation.CONTINUE_NOT_BARE);
        }
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
        state = to;
        count = 0;
    }

    private HttpViolationException violation(Violation violation) {
        // A failed head is never resumed: the connection closes after the answer.
        state = State.DONE;
        return new HttpViolationException(violation);
    }
}
