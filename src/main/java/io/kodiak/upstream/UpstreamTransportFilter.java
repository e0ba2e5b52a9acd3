package io.kodiak.upstream;

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
 * then terminated at once, as Grizzly's read does, not closed behind writes still queued to it.
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
}
