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
 * <p>Reads use Grizzly's own allocation (its receive size, the memory manager's buffers); they
 * skip its per-read probe notification, which nothing in Kodiak listens to. A buffer handed down
 * to read into (the TLS filter's) is read by Grizzly as before.
 */
final class UpstreamTransportFilter extends TransportFilter {

    @Override
    public NextAction handleRead(FilterChainContext ctx) throws IOException {
        if (!(ctx.getConnection() instanceof TCPNIOConnection connection) || ctx.getTransportContext().isBlocking()
                || ctx.getMessage() != null) {
            return super.handleRead(ctx);
        }
        Buffer buffer;
        try {
            buffer = TCPNIOUtils.allocateAndReadBuffer(connection);
        } catch (EOFException end) {
            // The end of the stream: the connection closes, and a close-delimited body ends here.
            throw end;
        } catch (IOException failed) {
            UpstreamConnection state = UpstreamConnection.peek(connection);
            if (state != null) {
                state.readFailed();
            }
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
