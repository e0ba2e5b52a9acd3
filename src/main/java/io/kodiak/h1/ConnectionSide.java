package io.kodiak.h1;

import io.kodiak.exchange.StreamSide;
import io.kodiak.transport.WriteQueues;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.WriteHandler;

/**
 * An HTTP/1.1 connection as one side of an exchange: its write queue's room, and the ends of a
 * tunnel over it. The client's and the upstream's streams are this, plus their own direction's work.
 */
public abstract class ConnectionSide implements StreamSide {
    protected final Connection<?> connection;
    protected final WriteQueues queues;

    protected ConnectionSide(Connection<?> connection, WriteQueues queues) {
        this.connection = connection;
        this.queues = queues;
    }

    /** Bytes for the peer, in order; never blocks (the transport queues them, counted). */
    protected final void write(org.glassfish.grizzly.Buffer bytes) {
        if (bytes != null) {
            queues.write(connection, bytes);
        }
    }

    @Override
    public final boolean hasRoom() {
        return queues.hasRoom(connection);
    }

    @Override
    public final void whenRoom(WriteHandler then) {
        queues.whenRoom(connection, then);
    }

    @Override
    public final boolean halfCloses() {
        return HalfCloses.possible(connection);
    }

    @Override
    public final void shutdownOutput() {
        HalfCloses.shutdownOutput(connection);
    }

    @Override
    public final void close() {
        connection.closeSilently();
    }
}
