package io.kodiak.proxyprotocol;

import io.kodiak.transport.PooledBuffers;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.filterchain.BaseFilter;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;

/**
 * On a listener with {@code proxy-protocol = true}, below TLS and the HTTP codec: each connection
 * must open with a PROXY protocol header (v1 or v2). The header is taken off, what it says is kept
 * for {@link ClientAddresses}, and the bytes after it go on as the connection's first. A connection
 * whose opening bytes are no acceptable header closes without an answer (an answer would be sent
 * to a balancer, or to a client that bypassed it) and is counted by reason. A header that arrives
 * in pieces waits within the connection's idle timeout, which runs from the accept.
 */
public final class ProxyProtocolFilter extends BaseFilter {
    private static final Logger LOG = LoggerFactory.getLogger(ProxyProtocolFilter.class);
    /** Where the bytes of a header that came in pieces are put together: one per thread, reused. */
    private static final ThreadLocal<byte[]> SCRATCH = ThreadLocal.withInitial(() -> new byte[ProxyHeaderParser.MAX_HEADER]);

    private final ProxyProtocolCounts counts;

    public ProxyProtocolFilter(ProxyProtocolCounts counts) {
        this.counts = counts;
    }

    /** A header's first bytes, kept until the rest comes (rare: a header is one segment). */
    private static final class Partial {
        final byte[] bytes = new byte[ProxyHeaderParser.MAX_HEADER];
        int length;
    }

    @Override
    public NextAction handleRead(FilterChainContext ctx) throws IOException {
        Connection<?> connection = ctx.getConnection();
        Object state = ClientAddresses.HEADER.get(connection);
        if (state instanceof ProxyHeader) {
            return ctx.getInvokeAction();
        }
        Buffer in = ctx.getMessage();
        Partial partial = (Partial) state;
        byte[] scratch = SCRATCH.get();
        int kept = partial == null ? 0 : partial.length;
        if (kept > 0) {
            System.arraycopy(partial.bytes, 0, scratch, 0, kept);
        }
        int taken = Math.min(in.remaining(), scratch.length - kept);
        int start = in.position();
        for (int i = 0; i < taken; i++) {
            scratch[kept + i] = in.get(start + i);
        }
        ProxyHeaderParser.Parsed parsed;
        try {
            parsed = ProxyHeaderParser.parse(scratch, kept + taken);
        } catch (ProxyHeaderRefused refused) {
            counts.refused(refused.reason());
            if (LOG.isDebugEnabled()) {
                LOG.debug("connection from {} closed: {}", connection.getPeerAddress(), refused.getMessage());
            }
            connection.closeSilently();
            return PooledBuffers.afterRead(ctx, ctx.getStopAction());
        }
        if (parsed == null) {
            if (partial == null) {
                partial = new Partial();
                ClientAddresses.HEADER.set(connection, partial);
                counts.pieced();
            }
            System.arraycopy(scratch, kept, partial.bytes, kept, taken);
            partial.length = kept + taken;
            return PooledBuffers.afterRead(ctx, ctx.getStopAction());
        }
        counts.accepted();
        ClientAddresses.HEADER.set(connection, parsed.header());
        in.position(start + (parsed.length() - kept));
        if (!in.hasRemaining()) {
            return PooledBuffers.afterRead(ctx, ctx.getStopAction());
        }
        return ctx.getInvokeAction();
    }
}
