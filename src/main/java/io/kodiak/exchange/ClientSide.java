package io.kodiak.exchange;

import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.WriteHandler;

/** What an exchange needs of the client connection it serves (the client side implements it). */
public interface ClientSide {
    Connection<?> connection();

    /** The client's IP address as text (X-Forwarded-For, the access log). */
    String address();

    /** The TLS protocol the connection speaks (TLSv1.3...), null on a plain listener. */
    String tlsProtocol();

    /**
     * True when a request for {@code host} (a HostName, null when none) must not be answered on
     * this connection: on a TLS listener with several certificates, the host would be served
     * under another certificate than the one the connection's TLS server name chose (RFC 9110
     * §15.5.20, 421 Misdirected Request).
     */
    boolean misdirected(String host);

    /** Response bytes, in order; never blocks (the transport queues them). */
    void write(Buffer bytes);

    /** Reads stopped by {@link Exchange#onRequestBody} returning false may go on. */
    void resumeReads();

    /** May the connection carry another request after this one (listener settings, max requests)? */
    boolean mayKeepAlive();

    /** After a 101: the client's bytes are now the new protocol's, for {@link Exchange#onClientTunnelBytes}. */
    void switchToTunnel(Exchange exchange);

    /**
     * The exchange is over and everything it had to write was written. {@code keepAlive}: the
     * response was complete and framed, so the connection may read the next request (once it
     * has skipped what is left of this request's body); otherwise it closes once its writes are out.
     */
    void exchangeEnded(Exchange exchange, boolean keepAlive);
}
