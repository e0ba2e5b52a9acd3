package io.kodiak.h2.upstream;

import io.kodiak.transport.PooledBuffers;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.filterchain.BaseFilter;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;
import org.glassfish.grizzly.ssl.SSLUtils;

import javax.net.ssl.SSLEngine;
import java.io.IOException;

/**
 * The top of an h2 upstream connection's filter chain (under it the transport, and TLS for an
 * https:// server): what is read goes to the connection's {@link Http2UpstreamConnection}, after
 * checking, over TLS, that the server selected h2 by ALPN; its close reaches the connection on its
 * loop.
 */
public final class Http2UpstreamFilter extends BaseFilter {

    @Override
    public NextAction handleRead(FilterChainContext ctx) throws IOException {
        Http2UpstreamConnection connection = Http2UpstreamConnection.of(ctx.getConnection());
        if (connection == null) {
            // Read before the pool took the connection over (nothing is expected before our preface).
            return PooledBuffers.afterRead(ctx, dropped(ctx));
        }
        SSLEngine engine = SSLUtils.getSSLEngine(ctx.getConnection());
        if (engine != null && !"h2".equals(engine.getApplicationProtocol())) {
            String selected = engine.getApplicationProtocol();
            connection.refuse("the server did not select h2 by ALPN (it selected "
                    + (selected == null || selected.isEmpty() ? "nothing" : selected) + ")");
            return PooledBuffers.afterRead(ctx, dropped(ctx));
        }
        // The read buffer goes back to the loop's pool once its bytes are taken.
        return PooledBuffers.afterRead(ctx, connection.onRead(ctx));
    }

    /** What was read is not for anybody: skipped, so it counts as taken. */
    private static NextAction dropped(FilterChainContext ctx) {
        Object message = ctx.getMessage();
        if (message instanceof org.glassfish.grizzly.Buffer buffer) {
            buffer.position(buffer.limit());
        }
        return ctx.getStopAction();
    }

    @Override
    public NextAction handleClose(FilterChainContext ctx) throws IOException {
        closed(ctx.getConnection());
        return ctx.getInvokeAction();
    }

    private static final org.glassfish.grizzly.attributes.Attribute<Throwable> TLS_FAILURE =
            org.glassfish.grizzly.Grizzly.DEFAULT_ATTRIBUTE_BUILDER.createAttribute(Http2UpstreamFilter.class.getName() + ".tls");

    /** The TLS handshake failed with {@code cause}: kept for the streams' attempts to name (the connection closes after). */
    public static void tlsFailed(Connection<?> grizzly, Throwable cause) {
        TLS_FAILURE.set(grizzly, cause);
        Http2UpstreamConnection connection = Http2UpstreamConnection.of(grizzly);
        if (connection != null) {
            connection.tlsFailed(cause);
        }
    }

    /** Why the handshake failed if it did before the h2 connection was made, else null. */
    static Throwable tlsFailure(Connection<?> grizzly) {
        return TLS_FAILURE.get(grizzly);
    }

    /** The close reaches the connection on its loop, whichever thread closed it. */
    static void closed(Connection<?> grizzly) {
        Http2UpstreamConnection connection = Http2UpstreamConnection.of(grizzly);
        if (connection != null) {
            connection.loop().execute(connection::onClosed);
        }
    }
}
