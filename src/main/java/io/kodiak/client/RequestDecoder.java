package io.kodiak.client;

import io.kodiak.http.BodyReader;
import io.kodiak.http.EmptyLines;
import io.kodiak.http.HeadReader;
import io.kodiak.http.HeadScanner;
import io.kodiak.http.HttpViolationException;
import io.kodiak.http.RequestHead;
import io.kodiak.http.Violation;
import org.glassfish.grizzly.Buffer;

/**
 * A client connection's HTTP/1.1 request codec: the head being read (over as many reads as it
 * takes, the empty lines between requests skipped), the {@link RequestHead} it fills, and its
 * body's framing (a length or chunks), also for a body read only to be dropped.
 */
final class RequestDecoder {
    /** Beyond this much unread request body after an early answer, closing is cheaper than reading it. */
    static final long MAX_BODY_TO_DISCARD = 1024 * 1024;

    private final HeadReader heads;
    private final RequestHead head = new RequestHead();
    private final BodyReader body;
    /** Empty lines between requests, skipped wherever the reads split them. */
    private final EmptyLines emptyLines = new EmptyLines();
    private long discardLeft;

    RequestDecoder(int maxHeaderSize) {
        this.heads = new HeadReader(HeadScanner.Start.REQUEST_LINE, maxHeaderSize, Violation.REQUEST_LINE_TOO_LONG);
        this.body = new BodyReader(maxHeaderSize);
    }

    /** Reads (more of) a head from {@code buffer}; true once one is parsed into {@link #head()}. */
    boolean readHead(Buffer buffer) throws HttpViolationException {
        if (!heads.isPartial() && !emptyLines.skip(buffer)) {
            return false;
        }
        if (!heads.read(buffer)) {
            return false;
        }
        head.parse(heads);
        return true;
    }

    /**
     * "PRI " at the very start of the connection: the HTTP/2 preface (RFC 9113 §3.4), never an
     * HTTP/1.1 request Kodiak would serve (PRI is refused with 501 when HTTP/2 is off).
     */
    static boolean opensHttp2(Buffer buffer) {
        int at = buffer.position();
        return buffer.remaining() >= 4 && buffer.get(at) == 'P' && buffer.get(at + 1) == 'R'
                && buffer.get(at + 2) == 'I' && buffer.get(at + 3) == ' ';
    }

    /** Part of a head was read and the rest is awaited. */
    boolean partial() {
        return heads.isPartial();
    }

    RequestHead head() {
        return head;
    }

    /** Lets go of the read buffer the last head lies in (HeadReader.clear says why). */
    void forgetHead() {
        heads.clear();
        head.forgetBytes();
    }

    /** The body of the head just read comes next (none: {@link #bodyDone()} at once). */
    void expectBody() {
        if (head.isChunked()) {
            body.expectChunked();
        } else {
            body.expectLength(Math.max(0, head.contentLength()));
        }
    }

    /** How many bytes at the buffer's position are body (chunk framing consumed); see {@link BodyReader#next}. */
    int nextBody(Buffer buffer) throws HttpViolationException {
        return body.next(buffer);
    }

    boolean bodyDone() {
        return body.isDone();
    }

    /** What is left of an answered request's body will be read only to be dropped, up to {@link #MAX_BODY_TO_DISCARD}. */
    void startDiscard() {
        discardLeft = MAX_BODY_TO_DISCARD;
    }

    /**
     * Drops the body bytes at the buffer's position. False when more came than is worth reading,
     * or the body broke its framing: the connection closes then.
     */
    boolean discard(Buffer buffer) {
        int n;
        try {
            n = Math.max(0, body.next(buffer));
        } catch (HttpViolationException e) {
            return false;
        }
        buffer.position(buffer.position() + n);
        discardLeft -= n;
        return discardLeft >= 0;
    }
}
