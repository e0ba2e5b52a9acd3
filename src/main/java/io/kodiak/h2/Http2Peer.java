package io.kodiak.h2;

import io.kodiak.loop.EventLoop;

/**
 * What an HTTP/2 connection needs of the client connection it runs on (the client package's
 * {@code ClientConnection}, which keeps the connection's identity, idle clock and close).
 */
public interface Http2Peer {
    /** The loop that owns the connection, its streams and their exchanges. */
    EventLoop loop();

    /** The client's IP address as text. */
    String address();

    /** The connection, for upstream connections that open with a PROXY header (the same object for every stream). */
    io.kodiak.proxyprotocol.ClientOrigin origin();

    /** The TLS protocol of the connection, null on a plain listener. */
    String tlsProtocol();

    /** A request for {@code host} must not be answered on this connection (421; see ClientStream#misdirected). */
    boolean misdirected(String host);

    /**
     * Something moved (a stream opened or ended, DATA came or went, a window opened): the idle
     * clock starts again from now. When it runs out the connection is asked what to do
     * ({@code Http2Connection.idleTimedOut}).
     */
    void activity();

    /** The connection ends once what was written is out. */
    void close();

    /**
     * After a GOAWAY for an error: our output ends once what was written is out, and what the
     * client still sends is read and dropped until it closes (or idle-timeout passes). Closing at
     * once, with its frames unread, would make the kernel reset the connection, and the client
     * could lose the GOAWAY that says why.
     */
    void linger();
}
