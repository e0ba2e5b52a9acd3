package io.kodiak.h1;

import io.kodiak.tls.CloseNotify;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.CompletionHandler;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.EmptyCompletionHandler;
import org.glassfish.grizzly.WriteResult;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.nio.NIOConnection;
import org.glassfish.grizzly.ssl.SSLUtils;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import java.io.IOException;
import java.nio.channels.SocketChannel;

/**
 * One direction of a TCP connection ended alone, for a tunnel's half-close ({@code
 * exchange.Tunnel} decides when): a FIN after everything queued, over TLS after a close_notify.
 */
public final class HalfCloses {
    private HalfCloses() {
    }

    /**
     * Plain TCP, or TLS that can end one direction and keep the other (TLS 1.2, and Conscrypt's
     * engine whatever the version, close both ways: see {@link CloseNotify#halfCloses}).
     */
    public static boolean possible(Connection<?> connection) {
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
    public static void shutdownOutput(Connection<?> connection) {
        SSLEngine engine = SSLUtils.getSSLEngine(connection);
        // The lock Grizzly's TLS filter wraps and queues under: nothing wrapped later goes before
        // the close_notify (uncontended: the connection's writes run on its loop).
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
