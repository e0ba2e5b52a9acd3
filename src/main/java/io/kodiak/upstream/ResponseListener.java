package io.kodiak.upstream;

import io.kodiak.http.ResponseHead;
import io.kodiak.http.Violation;
import org.glassfish.grizzly.Buffer;

/**
 * What an upstream connection reports to the attempt bound to it. Reads come on the connection's
 * loop, one at a time; a close and a deadline may come on another thread (the one that closed the
 * connection, the timer), and the listener posts them to its loop. A head is valid only during the
 * call that hands it over (its bytes belong to the read buffer). Each event names the connection
 * it comes from ({@code from}): an attempt the exchange has let go ignores the late events.
 */
public interface ResponseListener {

    /** True when the request was HEAD: its response has no body whatever its fields say (RFC 9110 §9.3.2). */
    boolean requestWasHead();

    /** True when the request asked to switch protocols: a 101 is its answer, not a violation. */
    boolean upgradeRequested();

    /**
     * An interim response (1xx other than 101); the final one follows. False asks to pause reads,
     * as {@link #onResponseBody}: an upstream may send 1xx after 1xx faster than a client reads.
     */
    boolean onInterimResponse(UpstreamConnection from, ResponseHead head);

    /**
     * The final response's head, a body to follow (or a 101's, after which the connection carries
     * tunnel bytes), with the first piece of that body when it came in the same read (else null),
     * so that both can leave in one write. False asks to pause reads, as {@link #onResponseBody}.
     */
    boolean onResponseHead(UpstreamConnection from, ResponseHead head, Buffer firstPiece);

    /** A piece of the response body, a slice of the read buffer, more to follow. False asks to pause reads until {@link UpstreamConnection#resumeReads()}. */
    boolean onResponseBody(UpstreamConnection from, Buffer piece);

    /**
     * The response ends here, in one call so that its last bytes and its end are one step for the
     * exchange: {@code head} when the whole response is that head (no body), {@code lastPiece}
     * when the last body bytes come with the end (either may be null). {@code reusable}: the
     * connection may carry another request.
     */
    void onResponseEnd(UpstreamConnection from, ResponseHead head, Buffer lastPiece, boolean reusable);

    /**
     * The response's trailer fields, just before its end ({@link #onResponseEnd} follows at once,
     * with no head and no piece). Only a protocol that carries them (h2) reports any.
     */
    default void onResponseTrailers(UpstreamConnection from, io.kodiak.http.Trailers trailers) {
    }

    /** After a 101: bytes of the new protocol, passed on as they come. False pauses reads as above. */
    boolean onTunnelBytes(UpstreamConnection from, Buffer bytes);

    /**
     * After a 101: the upstream sends no more, and still reads (it shut down its sending side; over
     * TLS, after its close_notify). Only a listener that asked for an upgrade hears of it.
     */
    default void onTunnelInputEnded(UpstreamConnection from) {
    }

    /** The response cannot be relayed (broken syntax or framing); the connection is being closed. */
    void onInvalidResponse(UpstreamConnection from, Violation violation);

    /** The response cannot be relayed: a protocol's own breach, described ({@code detail}); the stream is being reset. */
    default void onInvalidResponse(UpstreamConnection from, String detail) {
    }

    /** The connection closed (by the upstream, a reset, or us) while bound to this listener. */
    void onUpstreamClosed(UpstreamConnection from);

    /** The deadline last set through {@link ExchangeDeadlines} passed without progress. Called on the timer thread (the listener posts it to its loop). */
    void onDeadline(UpstreamConnection from);
}
