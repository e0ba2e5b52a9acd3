package io.kodiak.client;

import io.kodiak.h2.Http2Peer;
import io.kodiak.loop.EventLoop;

/**
 * What an HTTP/2 connection needs of the client connection it runs on: the client's identity
 * (address, TLS protocol, server name, from its {@link Http1ClientStream}), its idle clock and its
 * close.
 */
final class ClientPeer implements Http2Peer {
    private final ClientConnection connection;
    private final Http1ClientStream identity;

    ClientPeer(ClientConnection connection, Http1ClientStream identity) {
        this.connection = connection;
        this.identity = identity;
    }

    @Override
    public EventLoop loop() {
        return connection.loop();
    }

    @Override
    public String address() {
        return identity.address();
    }

    @Override
    public io.kodiak.proxyprotocol.ClientOrigin origin() {
        return identity.origin();
    }

    @Override
    public String tlsProtocol() {
        return identity.tlsProtocol();
    }

    @Override
    public boolean misdirected(String host) {
        return identity.misdirected(host);
    }

    @Override
    public void activity() {
        connection.activity();
    }

    @Override
    public void close() {
        connection.close();
    }

    @Override
    public void linger() {
        connection.linger();
    }
}
