package io.kodiak.proxyprotocol;

import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.Grizzly;
import org.glassfish.grizzly.attributes.Attribute;

import java.net.InetSocketAddress;

/**
 * The one place a client connection's address is read: the socket's peer, or the client a PROXY
 * protocol header named on a listener that requires one. Everything keyed by the client (the
 * X-Forwarded-For entry, the access log, limits, hashing) reads it here.
 */
public final class ClientAddresses {
    /** What the connection's header said, once read; absent on listeners without the protocol. */
    static final Attribute<Object> HEADER =
            Grizzly.DEFAULT_ATTRIBUTE_BUILDER.createAttribute(ClientAddresses.class.getName() + ".header");

    private ClientAddresses() {
    }

    /** The client's address: the one carried by the connection's PROXY header, else the socket's peer. */
    public static Object peer(Connection<?> connection) {
        if (HEADER.get(connection) instanceof ProxyHeader header && header.carriesAddress()) {
            return header.source();
        }
        return connection.getPeerAddress();
    }

    /**
     * The client connection's two ends for a PROXY header sent upstream: the ones its own header
     * carried, else the socket's peer and local addresses.
     */
    public static ProxyHeader origin(Connection<?> connection) {
        if (HEADER.get(connection) instanceof ProxyHeader header && header.carriesAddress()) {
            return header;
        }
        Object peer = connection.getPeerAddress();
        Object local = connection.getLocalAddress();
        return peer instanceof InetSocketAddress source && local instanceof InetSocketAddress destination
                ? new ProxyHeader(source, destination) : ProxyHeader.LOCAL;
    }

    /** The client's IP address as text. */
    public static String address(Connection<?> connection) {
        Object peer = peer(connection);
        return peer instanceof InetSocketAddress inet ? inet.getAddress().getHostAddress() : String.valueOf(peer);
    }
}
