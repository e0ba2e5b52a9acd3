package io.kodiak.exchange;

import io.kodiak.tls.CloseNotify;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.CompletionHandler;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.EmptyCompletionHandler;
import org.glassfish.grizzly.Grizzly;
import org.glassfish.grizzly.WriteResult;
import org.glassfish.grizzly.attributes.Attribute;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.nio.NIOConnection;
import org.glassfish.grizzly.ssl.SSLUtils;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import java.io.IOException;
import java.nio.channels.SocketChannel;

/**
 * A tunnel's half-closes. Each direction of a TCP connection ends on its own: a peer that shuts
 * down its sending side (its FIN; over TLS 1.3, its close_notify first) may still read and wait
 * for an answer, as a tunnelled protocol may have it do. So the end of one side's input is passed
 * on as the end of the other side's output, and the opposite direction goes on.
 *
 * <p>Each connection of the tunnel closes once both its directions are done, its input ended and
 * its output shut down: its close ends the tunnel, as any close does. Where a side cannot end one
 * direction alone (TLS 1.2, Conscrypt's engine: see {@link CloseNotify#halfCloses}), only a close
 * can tell, and the tunnel ends at once, as it did before half-closes were passed on.
 */
final class HalfClose {
    private static final Attribute<Directions> DIRECTIONS =
            Grizzly.DEFAULT_ATTRIBUTE_BUILDER.createAttribute(HalfClose.class.getName());
    private HalfClose() {
    }

    /**
     * {@code from}'s input ended: {@code to}, the other side of the tunnel, gets no more bytes.
     * Told again (over TLS 1.3 a close_notify, then the end of the TCP stream), nothing more happens.
     */
    static void passOn(Connection<?> from, Connection<?> to) {
        // Both connections belong to the exchange's loop, which makes every call here: when both
        // sides end, the second call sees the first one's mark, and the tunnel ends.
        Directions source = directions(from);
        if (source.inputEnded) {
            return;
        }
        source.inputEnded = true;
        // Nothing left for it to carry, or only a close can tell the other side.
        boolean close = source.outputEnded || !oneWayPossible(from) || !oneWayPossible(to);
        if (!close) {
            directions(to).outputEnded = true;
        }
        if (close) {
            from.closeSilently();
        } else {
            shutdownOutput(to);
        }
    }

    /** Plain TCP, or TLS that can end one direction and keep the other. */
    private static boolean oneWayPossible(Connection<?> connection) {
        if (!(connection instanceof NIOConnection nio) || !(nio.getChannel() instanceof SocketChannel)) {
            return false;
        }
        SSLEngine engine = SSLUtils.getSSLEngine(connection);
        return engine == null || CloseNotify.halfCloses(engine);
    }

    /**
     * Shuts down the connection's output once everything queued before is written: behind the
     * transport filter, as Grizzly's graceful close waits for its queue, and over TLS after a
     * close_notify, without which the peer could not tell the end from a cut.
     */
    private static void shutdownOutput(Connection<?> connection) {
        SSLEngine engine = SSLUtils.getSSLEngine(connection);
        // The lock Grizzly's TLS filter wraps and queues under: nothing wrapped later goes before the close_notify.
        synchronized (connection) {
            Buffer last = Buffers.EMPTY_BUFFER;
            if (engine != null) {
                try {
                    last = CloseNotify.closeOutbound(engine, connection.getMemoryManager());
                } catch (SSLException failed) {
                    connection.closeSilently();
                    return;
                }
            }
            writeBelowFilters(connection, last, new Shutdown(connection));
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void writeBelowFilters(Connection<?> connection, Buffer bytes, CompletionHandler<?> then) {
        // Grizzly's generics name the connection's address type, which a write does not care about.
        ((Connection) connection).getTransport().getWriter(connection).write(connection, bytes, (CompletionHandler) then);
    }

    /** On the connection's loop. */
    private static Directions directions(Connection<?> connection) {
        Directions directions = DIRECTIONS.get(connection);
        if (directions == null) {
            directions = new Directions();
            DIRECTIONS.set(connection, directions);
        }
        return directions;
    }

    /** Which directions of one connection are done; read and written on the connection's loop only. */
    private static final class Directions {
        private boolean inputEnded;
        private boolean outputEnded;
    }

    /** The last queued byte is written: the FIN follows. */
    private static final class Shutdown extends EmptyCompletionHandler<WriteResult<?, ?>> {
        private final Connection<?> connection;

        Shutdown(Connection<?> connection) {
            this.connection = connection;
        }

        @Override
        public void completed(WriteResult<?, ?> result) {
            try {
                ((SocketChannel) ((NIOConnection) connection).getChannel()).shutdownOutput();
            } catch (IOException gone) {
                // Closed meanwhile (the tunnel ended), or the peer reset it: its close event ends the tunnel.
                connection.closeSilently();
            }
        }
    }
}
