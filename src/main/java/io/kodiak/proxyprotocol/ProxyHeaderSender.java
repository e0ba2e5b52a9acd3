package io.kodiak.proxyprotocol;

import io.kodiak.config.ProxyProtocolVersion;
import io.kodiak.transport.OneWrite;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.Grizzly;
import org.glassfish.grizzly.attributes.Attribute;
import org.glassfish.grizzly.filterchain.BaseFilter;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;
import org.glassfish.grizzly.memory.Buffers;

import java.io.IOException;

/**
 * On connections to servers with {@code proxy.upstream.proxy-protocol} on, just above the
 * transport (below TLS, so the header precedes the handshake): the connection's first bytes
 * become the PROXY header naming the client the connection was opened for ({@link #openFor}),
 * or none (a health check: LOCAL / UNKNOWN). Such a connection is never handed to another client
 * (its pool keeps no connection; ProxyConfig.Upstream#keepsConnections).
 */
public final class ProxyHeaderSender extends BaseFilter {
    /** The client a connection was opened for, until its header is written; then {@link #SENT}. */
    private static final Attribute<Object> STATE =
            Grizzly.DEFAULT_ATTRIBUTE_BUILDER.createAttribute(ProxyHeaderSender.class.getName() + ".state");
    private static final Object SENT = new Object();

    private final ProxyProtocolVersion version;

    public ProxyHeaderSender(ProxyProtocolVersion version) {
        this.version = version;
    }

    /** Before the connection's first write: it carries {@code client}'s exchange. */
    public static void openFor(Connection<?> connection, ProxyHeader client) {
        if (STATE.get(connection) != SENT) {
            STATE.set(connection, client);
        }
    }

    @Override
    public NextAction handleWrite(FilterChainContext ctx) throws IOException {
        Connection<?> connection = ctx.getConnection();
        Object state = STATE.get(connection);
        if (state == SENT) {
            return ctx.getInvokeAction();
        }
        STATE.set(connection, SENT);
        byte[] header = ProxyHeaderWriter.write(version, state instanceof ProxyHeader client ? client : ProxyHeader.LOCAL);
        Buffer first = ctx.getMessage();
        ctx.setMessage(OneWrite.of(ctx.getMemoryManager(), Buffers.wrap(ctx.getMemoryManager(), header), first));
        return ctx.getInvokeAction();
    }
}
