package io.kodiak.proxyprotocol;

import org.glassfish.grizzly.Connection;

/**
 * One client connection as the upstream side sees it when servers are sent PROXY headers: the
 * header that names it, and the upstream connections kept idle for its next exchanges, at most
 * one per server. Such a connection told its server "these bytes come from this client
 * connection", so it may carry this client connection's later requests and no one else's (as
 * HAProxy keeps a connection that sent a PROXY header private to its session): the same
 * addresses are not enough, a second connection from the same client is another connection.
 *
 * <p>One per client connection, made on its loop when its first exchange needs it; every
 * upstream connection kept here is registered on that same loop, and only that loop touches this
 * object: no lock.
 */
public final class ClientOrigin {
    /** A client a server hears of as nobody (tests' fake clients). */
    public static final ClientOrigin NOBODY = new ClientOrigin(ProxyHeader.LOCAL);

    private final ProxyHeader header;
    /** Parallel: the server (its pool, opaque here) and the connection kept for it; few servers per client. */
    private Object[] servers = new Object[1];
    private Connection<?>[] kept = new Connection<?>[1];
    private int size;
    /** The client connection closed: nothing is kept for it any more. */
    private boolean closed;

    public ClientOrigin(ProxyHeader header) {
        this.header = header;
    }

    /** What a header sent for this client connection says. */
    public ProxyHeader header() {
        return header;
    }

    /** The connection kept idle for {@code server}, taken out of its slot; null when none is. */
    public Connection<?> take(Object server) {
        int at = indexOf(server);
        if (at < 0) {
            return null;
        }
        Connection<?> connection = kept[at];
        removeAt(at);
        return connection;
    }

    /**
     * Keeps {@code connection} idle for {@code server}. False, keeping nothing, when the client
     * connection has closed or {@code server}'s slot is taken (an HTTP/2 client's streams ran at
     * once, each on its own connection: one is kept): the caller closes it.
     */
    public boolean keep(Object server, Connection<?> connection) {
        if (closed || this == NOBODY || indexOf(server) >= 0) {
            return false;
        }
        if (size == servers.length) {
            servers = java.util.Arrays.copyOf(servers, size * 2);
            kept = java.util.Arrays.copyOf(kept, size * 2);
        }
        servers[size] = server;
        kept[size] = connection;
        size++;
        return true;
    }

    /** {@code connection} left {@code server}'s slot (it closed, idled too long, or gave its budget up); nothing if it is not there. */
    public void forget(Object server, Connection<?> connection) {
        int at = indexOf(server);
        if (at >= 0 && kept[at] == connection) {
            removeAt(at);
        }
    }

    /** Connections kept idle for this client now. */
    public int keptCount() {
        return size;
    }

    /** The client connection closed: the connections kept for it close, and none is kept from now on. */
    public void clientClosed() {
        closed = true;
        // Emptied first: each close tells its pool, which comes back to forget it here.
        Connection<?>[] closing = size == 0 ? null : java.util.Arrays.copyOf(kept, size);
        java.util.Arrays.fill(servers, null);
        java.util.Arrays.fill(kept, null);
        size = 0;
        if (closing != null) {
            for (Connection<?> connection : closing) {
                connection.closeSilently();
            }
        }
    }

    private int indexOf(Object server) {
        for (int i = 0; i < size; i++) {
            if (servers[i] == server) {
                return i;
            }
        }
        return -1;
    }

    private void removeAt(int at) {
        size--;
        servers[at] = servers[size];
        kept[at] = kept[size];
        servers[size] = null;
        kept[size] = null;
    }
}
