package io.kodiak.upstream;

import io.kodiak.http.BodyReader;
import io.kodiak.http.HeadReader;
import io.kodiak.http.HeadScanner;
import io.kodiak.http.ResponseHead;
import io.kodiak.http.Violation;


/** Where an upstream connection stands in reading responses, with the reusable parts of its codec. */
final class ResponseReading {
    /** HEAD (a head, interim ones included) → BODY (unless none follows) → HEAD; HEAD → TUNNEL after a 101, for good. */
    enum Phase { HEAD, BODY, TUNNEL }

    /** Large enough for any sane upstream response head; beyond it the response is refused with 502. */
    static final int MAX_HEAD_SIZE = 64 * 1024;

    final HeadReader heads = new HeadReader(HeadScanner.Start.STATUS_LINE, MAX_HEAD_SIZE, Violation.HEAD_TOO_LARGE);
    final ResponseHead head = new ResponseHead();
    /** Its trailers are kept: a chunked response's trailer fields are relayed where the client can take them. */
    final BodyReader body = new BodyReader(MAX_HEAD_SIZE, true);
    Phase phase = Phase.HEAD;
    /** The response being read will let the connection carry another request (its Connection field and HTTP version). */
    boolean keepAlive;
    /** Set when a response ended in the current read: nothing more is read from it. */
    boolean completed;

    /** Lets go of the read buffer the last head lies in (HeadReader.clear says why). */
    void forgetHead() {
        heads.clear();
        head.forgetBytes();
    }

    /** Ready for the next response (or nothing more: the connection is closing). */
    void reset() {
        phase = Phase.HEAD;
        completed = false;
        heads.clear();
    }
}
