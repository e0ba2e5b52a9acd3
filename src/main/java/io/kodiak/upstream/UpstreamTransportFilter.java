package io.kodiak.upstream;

import io.kodiak.transport.HalfCloseTransportFilter.InputEnded;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;
import org.glassfish.grizzly.filterchain.TransportFilter;
import org.glassfish.grizzly.nio.transport.TCPNIOConnection;
import org.glassfish.grizzly.nio.transport.TCPNIOUtils;

import java.io.EOFException;
import java.io.IOException;

/**
 * Grizzly's TransportFilter for upstream connections, except that it tells a reset from the end of
 * the stream. Grizzly's own read reports both as the end of the stream, and a body delimited by the
 * connection's close (no Content-Length, not chunked) would then reach the client as complete
 * when the upstream crashed in its middle; a reset is recorded on the connection
 * ({@link UpstreamConnection#readFailed()}) before the close it causes.
 *
 * <p>Reads use Grizzly's own allocation (its receive size, the memory manager's buffers), or the
 * buffer handed down to read into (the TLS filter's, sized for a record); they skip Grizzly's
 * per-read probe notification, which nothing in Kodiak listens to. Either way the connection is
 * then terminated at once, as Grizzly's read does, not closed behind writes still queued to it;
 * except after a 101, where the end of the stream may be the upstream's half-close: the tunnel
 * passes it on and goes on the other way (an {@link InputEnded} event, for {@link UpstreamFilter}).
 */
final class UpstreamTransportFilter extends TransportFilter {

    @Override
    public NextAction handleRead(FilterChainContext ctx) throws IOException {
        if (!(ctx.getConnection() instanceof TCPNIOConnection connection) || ctx.getTransportContext().isBlocking()) {
            return super.handleRead(ctx);
        }
        Buffer buffer = ctx.getMessage();
        try {
            if (buffer == null) {
                buffer = TCPNIOUtils.allocateAndReadBuffer(connection);
            } else if (buffer.hasRemaining() && TCPNIOUtils.readBuffer(connection, buffer) < 0) {
                throw new EOFException();
            }
        } catch (EOFException end) {
            if (tunnelling(connection)) {
                if (buffer != null) {
                    // The TLS filter's, handed down to read into: it will not see this read.
                    buffer.tryDispose();
                    ctx.setMessage(null);
                }
                return inputEnded(ctx);
            }
            // The end of the stream: a close-delimited body ends here.
            connection.terminateWithReason(end);
            throw end;
        } catch (IOException failed) {
            UpstreamConnection state = UpstreamConnection.peek(connection);
            if (state != null) {
                state.readFailed();
            }
            connection.terminateWithReason(failed);
            throw failed;
        }
        if (buffer.position() == 0) {
            // nothing was there to read
            return ctx.getStopAction();
        }
        buffer.trim();
        ctx.setMessage(buffer);
        return ctx.getInvokeAction();
    }

    /** After a 101: the upstream's input may end alone (a half-close), its output still open. */
    private static boolean tunnelling(TCPNIOConnection connection) {
        UpstreamConnection state = UpstreamConnection.peek(connection);
        return state != null && state.reading().phase == ResponseReading.Phase.TUNNEL;
    }

    /**
     * Passes the end of a tunnel's input up as an {@link InputEnded} event and keeps the
     * connection open, as {@link io.kodiak.transport.HalfCloseTransportFilter} does for clients:
     * its read context is suspended for good, since a socket at its end reads as ready for ever.
     */
    private static NextAction inputEnded(FilterChainContext ctx) {
        ctx.suspend();
        NextAction suspended = ctx.getSuspendAction();
        ctx.notifyUpstream(InputEnded.EVENT);
        return suspended;
    }

    /**
     * A filter above failed on what was read (the TLS filter on a record that does not decrypt, or
     * on a fatal alert): the close that follows is no end of a close-delimited body either. Only
     * failures of reads and other inbound events come here; Grizzly closes the connection after.
     */
    @Override
    public void exceptionOccurred(FilterChainContext ctx, Throwable error) {
        UpstreamConnection state = UpstreamConnection.peek(ctx.getConnection());
        if (state != null) {
            state.readFailed();
        }
        super.exceptionOccurred(ctx, error);
    }
}
