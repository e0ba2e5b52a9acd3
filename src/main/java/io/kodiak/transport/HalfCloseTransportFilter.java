package io.kodiak.transport;

import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.FilterChainEvent;
import org.glassfish.grizzly.filterchain.NextAction;
import org.glassfish.grizzly.filterchain.TransportFilter;
import org.glassfish.grizzly.nio.transport.TCPNIOConnection;
import org.glassfish.grizzly.nio.transport.TCPNIOUtils;

import java.io.EOFException;
import java.io.IOException;

/**
 * Grizzly's TransportFilter for a listener, except at the end of a client's input. Grizzly takes a
 * read that finds the end of the stream as the connection gone and closes the socket both ways;
 * but a client that shuts down only its sending side (TCP half-close: {@code shutdown(SHUT_WR)},
 * {@code nc -N}, many test tools) still waits for its answer, and the service behind the proxy
 * gives it one. So here the end of input is passed up the chain as an {@link InputEnded} event,
 * and the connection stays open for the client side to decide: answer what was asked, then close.
 *
 * <p>Once at its end a socket reads as ready for good, so this read context is suspended and
 * never resumed: that keeps the connection's read interest off with every I/O strategy. Reads
 * here skip Grizzly's per-read probe notification, which nothing in Kodiak listens to. Only a
 * listener with client-half-close = "answer" has this filter; the others keep Grizzly's.
 */
public final class HalfCloseTransportFilter extends TransportFilter {
    /** The peer sends no more: what it sent was all read (a client here; after a 101, also an upstream: see UpstreamTransportFilter). */
    public static final class InputEnded implements FilterChainEvent {
        public static final Object TYPE = InputEnded.class.getName();
        public static final InputEnded EVENT = new InputEnded();

        private InputEnded() {
        }

        @Override
        public Object type() {
            return TYPE;
        }
    }

    @Override
    public NextAction handleRead(FilterChainContext ctx) throws IOException {
        if (!(ctx.getConnection() instanceof TCPNIOConnection connection) || ctx.getTransportContext().isBlocking()) {
            return super.handleRead(ctx);
        }
        // Grizzly's own reads (its receive size, the memory manager's buffers), without its close.
        Buffer buffer = ctx.getMessage();
        if (buffer == null) {
            try {
                buffer = TCPNIOUtils.allocateAndReadBuffer(connection);
            } catch (EOFException end) {
                // How it reports the end of the stream alone: a failed read (a reset, say) comes
                // as the socket's own IOException, which closes the connection (through the
                // chain's exceptionOccurred: a graceful close, where Grizzly's read closed at once).
                return inputEnded(ctx);
            }
        } else if (buffer.hasRemaining() && TCPNIOUtils.readBuffer(connection, buffer) < 0) {
            // A buffer handed down to read into (the TLS filter's, sized for a record).
            buffer.tryDispose();
            ctx.setMessage(null);
            return inputEnded(ctx);
        }
        if (buffer.position() == 0) {
            // nothing was there to read
            return ctx.getStopAction();
        }
        buffer.trim();
        // (No address on the context: on TCP nothing in the chain reads it.)
        ctx.setMessage(buffer);
        return ctx.getInvokeAction();
    }

    private static NextAction inputEnded(FilterChainContext ctx) {
        ctx.suspend();
        NextAction suspended = ctx.getSuspendAction();
        ctx.notifyUpstream(InputEnded.EVENT);
        return suspended;
    }
}
