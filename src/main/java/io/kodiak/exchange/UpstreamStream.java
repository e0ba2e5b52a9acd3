package io.kodiak.exchange;

import org.glassfish.grizzly.Buffer;

/**
 * The upstream side of one attempt: the request goes out through it, and its response comes back
 * to the attempt's {@link io.kodiak.upstream.ResponseListener}. The stream frames what it sends for
 * its protocol (an HTTP/1.1 connection today, {@code h1.Http1UpstreamStream}; an HTTP/2 stream next)
 * and is bound to its attempt from {@link UpstreamProtocol#bind} to {@link #finish}. Every call
 * comes on the exchange's loop.
 */
public interface UpstreamStream extends StreamSide {

    /** The request's head and the body held until now ({@code held}, null when none), in one write; {@code last}: the body ends with it. */
    void sendRequest(PreparedRequest request, Buffer held, boolean last);

    /** A piece of the request body (null or empty with {@code last}: only the end). */
    void sendBody(Buffer piece, boolean last);

    /** After a 101: bytes of the new protocol, as they are. */
    void relay(Buffer bytes);

    /** Reads paused by a listener's false (the client could take no more) go on. */
    void resumeReads();

    /** The exchange must make progress within {@code millis}, or the listener hears of its deadline. */
    void armDeadline(long millis);

    /**
     * True while the deadline is set. The timer clears one when it passes, before the exchange's
     * loop hears of it: set again by then, the exchange made progress meanwhile.
     */
    boolean deadlineSet();

    /**
     * The connection closed (reset while idle in the pool) before the attempt was bound to it, so
     * its close event reached nobody: true once, and the exchange handles the close itself.
     */
    boolean closedBeforeBound();

    /** The stream's connection carried a request before this one (a pooled one). */
    boolean reused();

    /**
     * The server said it processed nothing of the request (h2: REFUSED_STREAM, or a stream past
     * its GOAWAY's last one): it may go again, whatever its method, while it can be sent whole.
     */
    default boolean refused() {
        return false;
    }

    /** Part of a response head arrived and no more: the server began to answer (read after a close). */
    boolean headBegun();

    /** Why the TLS handshake failed, or null. */
    Throwable tlsFailure();

    /**
     * The attempt lets the stream go: no event reaches it any more. {@code reusable}: the
     * connection may carry another request (back to its pool); otherwise it is closed.
     */
    void finish(boolean reusable);
}
