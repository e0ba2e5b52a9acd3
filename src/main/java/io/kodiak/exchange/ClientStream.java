package io.kodiak.exchange;

import io.kodiak.proxyprotocol.ClientOrigin;
import io.kodiak.http.RequestHead;
import io.kodiak.http.ResponseHead;
import io.kodiak.loop.EventLoop;
import io.kodiak.routing.HeaderRules;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.MemoryManager;

/**
 * The client's side of one exchange: where its request came from and where its answer goes. The
 * exchange writes heads, body pieces and ends; the stream frames them for its protocol (an HTTP/1.1
 * connection today, {@code client.Http1ClientStream} with {@code h1.ResponseWriter}; an HTTP/2
 * stream next). Every call comes on the stream's {@link #loop()}, which is the exchange's.
 */
public interface ClientStream extends StreamSide {

    /** The loop that owns the stream, and so its exchange and the upstream connections it opens. */
    EventLoop loop();

    /** Where the exchange's own buffers come from (a held request body). */
    MemoryManager memory();

    /** The client's IP address as text (X-Forwarded-For, the access log). */
    String address();

    /**
     * The client connection, for upstream connections that open with a PROXY header: the header
     * naming it, and the connections kept for it alone. The same object for every exchange of
     * the connection (every stream of an HTTP/2 one).
     */
    ClientOrigin origin();

    /** The TLS protocol the connection speaks (TLSv1.3...), null on a plain listener. */
    String tlsProtocol();

    /**
     * True when a request for {@code host} (a HostName, null when none) must not be answered on
     * this connection: on a TLS listener with several certificates, the host would be served
     * under another certificate than the one the connection's TLS server name chose (RFC 9110
     * §15.5.20, 421 Misdirected Request).
     */
    boolean misdirected(String host);

    /** The protocol the request came in, as the access log names it ($server_protocol). */
    default String protocol(RequestHead head) {
        return head.isHttp11() ? "HTTP/1.1" : "HTTP/1.0";
    }

    /** May the stream's connection carry another request after this one (listener settings, max requests)? */
    boolean mayKeepAlive();

    /** Asks the client for its body (it sent Expect: 100-continue and the upstream is ready). */
    void sendContinue();

    /** An interim response (1xx but 100 and 101) for the client; false when its protocol has no place for it (HTTP/1.0). */
    boolean sendInterim(ResponseHead head);

    /**
     * The final response head, after the route's {@code rules} (their variables from {@code
     * values}), with {@code firstPiece} of its body when it came along (else null); {@code last}:
     * that is the whole response. {@code keepAllowed}: the exchange would keep the connection.
     * Returns whether it is kept after this response: a body delimited by the close overrules.
     */
    boolean sendHead(ResponseHead head, HeaderRules rules, io.kodiak.routing.HeaderVariable.Values values,
                     boolean keepAllowed, Buffer firstPiece, boolean last);

    /** A piece of the response body (null or empty with {@code last}: only the end), framed for the client. */
    void sendBody(Buffer piece, boolean last);

    /**
     * The body's end with {@code lastPiece} (or null) and the response's {@code trailers}, where
     * the client's protocol has a place for them: an HTTP/2 stream always, an HTTP/1.1 chunked
     * response when the request said TE: trailers. Elsewhere they are dropped (RFC 9110 §6.5.1).
     */
    default void sendEnd(Buffer lastPiece, io.kodiak.http.Trailers trailers) {
        sendBody(lastPiece, true);
    }

    /** After a 101: bytes of the new protocol, as they are. */
    void relay(Buffer bytes);

    /**
     * Kodiak's own answer for {@code error} (its request id when {@code requestNumber} is not 0),
     * with {@code detail} after its text when not null (which rule a client's request broke);
     * {@code keep}: the connection stays open after it.
     */
    void sendLocal(ProxyError error, String detail, long requestNumber, boolean keep);

    /** Reads stopped by {@link Exchange#onRequestBody} returning false may go on. */
    void resumeReads();

    /** After a 101: the client's bytes are now the new protocol's, for {@link Exchange#onClientTunnelBytes}. */
    void switchToTunnel(Exchange exchange);

    /**
     * The exchange is over and everything it had to write was written. {@code keepAlive}: the
     * response was complete and framed, so the connection may read the next request (once it
     * has skipped what is left of this request's body); otherwise it closes once its writes are out.
     */
    void exchangeEnded(Exchange exchange, boolean keepAlive);
}
