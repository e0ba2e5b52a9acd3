package io.kodiak.http;

/**
 * A response head as read from an upstream connection, checked as strictly as a request: the
 * version, the framing, and a body announced where none may follow.
 */
public final class ResponseHead extends MessageHead {
    private int status;

    /** Parses the head {@code reader} has just completed. */
    public void parse(HeadReader reader) {
        array = reader.array();
        HeadLayout layout = reader.layout();
        version(layout.start() + 5);
        status = layout.status();
        if (status < 100) {
            // RFC 9110 §15: status codes are 100 to 599 (3DIGIT allows 000-099, which nothing may send on).
            throw new HttpViolationException(Violation.STATUS_LINE_SYNTAX);
        }
        parseFields(reader);
        if ((status == 204 || status == 205) && (isChunked() || contentLength() > 0)) {
            // RFC 9110 §15.3.5, §15.3.6: no content; a body that follows would be read as the next response.
            throw new HttpViolationException(Violation.BODY_ON_BODYLESS_STATUS);
        }
    }

    @Override
    void onField(FieldName name, int field) {
    }

    public int status() {
        return status;
    }

    public boolean isInterim() {
        return status < 200;
    }

    /** RFC 9112 §6.3: whether a body follows this head, given the request it answers. */
    public boolean hasBody(boolean requestWasHead) {
        return !requestWasHead && status >= 200 && status != 204 && status != 304;
    }

    /** A body delimited by the connection's close: neither chunked nor of a declared length. */
    public boolean isCloseDelimited() {
        return !isChunked() && contentLength() < 0;
    }

    /** The status line's reason phrase: {@code [reasonStart, reasonEnd)} of {@link #array()}. */
    public int reasonStart() {
        return layout.reasonStart();
    }

    public int reasonEnd() {
        return layout.lineEnd();
    }
}
