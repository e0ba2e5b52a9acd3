package io.kodiak.proxyprotocol;

import io.kodiak.config.AddressBlock;
import io.kodiak.transport.PooledBuffers;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.filterchain.BaseFilter;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * On a listener with {@code proxy-protocol = true}, below TLS and the HTTP codec: each connection
 * must open with a PROXY protocol header (v1 or v2). The header is taken off, what it says is kept
 * for {@link ClientAddresses}, and the bytes after it go on as the connection's first. A connection
 * whose opening bytes are no acceptable header closes without an answer (an answer would be sent
 * to a balancer, or to a client that bypassed it) and is counted by reason. A header that arrives
 * in pieces waits within the connection's idle timeout, which runs from the accept.
 *
 * <p>With trusted sources ({@code proxy-protocol-trusted}), a connection from any other peer is
 * closed at its accept, before a byte of it is read, and counted as {@code untrusted}: whatever
 * header it would send never becomes a client address. It is not served with its socket address
 * instead: a port that takes PROXY headers is the balancers' (as nginx requires the header on such
 * a listener and HAProxy's expect-proxy is tied to the balancers' sources); clients that reach
 * Kodiak directly use a listener without the protocol.
 */
public final class ProxyProtocolFilter extends BaseFilter {
    private static final Logger LOG = LoggerFactory.getLogger(ProxyProtocolFilter.class);
    /** Where the bytes of a header that came in pieces are put together: one per thread, reused. */
    private static final ThreadLocal<byte[]> SCRATCH = ThreadLocal.withInitial(() -> new byte[ProxyHeaderParser.MAX_HEADER]);

    /** Marks a connection refused at its accept: whatever it still delivers is dropped. */
    private static final Object REFUSED = new Object();

    private final ProxyProtocolCounts counts;
    /** The peers allowed to send a header; empty: every peer. */
    private final List<AddressBlock> trusted;

    public ProxyProtocolFilter(ProxyProtocolCounts counts, List<AddressBlock> trusted) {
        this.counts = counts;
        this.trusted = trusted;
    }

    @Override
    public NextAction handleAccept(FilterChainContext ctx) throws IOException {
        Connection<?> connection = ctx.getConnection();
        if (trusted.isEmpty() || connection.getPeerAddress() instanceof InetSocketAddress peer
                && peer.getAddress() != null && AddressBlock.anyHolds(trusted, peer.getAddress())) {
            return ctx.getInvokeAction();
        }
        counts.refused(ProxyHeaderRefused.Reason.UNTRUSTED);
        if (LOG.isDebugEnabled()) {
            LOG.debug("connection from {} closed: not a trusted source of PROXY headers", connection.getPeerAddress());
        }
        ClientAddresses.HEADER.set(connection, REFUSED);
        connection.closeSilently();
        // The server side never sees it: no client connection, no exchange.
        return ctx.getStopAction();
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
        if (state == REFUSED) {
            return PooledBuffers.afterRead(ctx, ctx.getStopAction());
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
