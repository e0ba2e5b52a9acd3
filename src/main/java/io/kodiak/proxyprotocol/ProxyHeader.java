package io.kodiak.proxyprotocol;

import java.net.InetSocketAddress;

/**
 * What a PROXY protocol header said about the connection: the client's address and the address it
 * connected to on the balancer's side, or neither (v1 UNKNOWN, v2 LOCAL or an address family
 * without an IP: the balancer's own connection, such as a health check; the socket's own addresses
 * stand).
 */
public record ProxyHeader(InetSocketAddress source, InetSocketAddress destination) {
    /** No address carried. */
    public static final ProxyHeader LOCAL = new ProxyHeader(null, null);

    public boolean carriesAddress() {
        return source != null;
    }
}
