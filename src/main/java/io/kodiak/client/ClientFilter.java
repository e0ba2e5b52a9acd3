package io.kodiak.client;

import io.kodiak.exchange.Admission;
import io.kodiak.h2.Http2Observer;
import io.kodiak.transport.HalfCloseTransportFilter;
import io.kodiak.transport.PooledBuffers;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.Grizzly;
import org.glassfish.grizzly.attributes.Attribute;
import org.glassfish.grizzly.filterchain.BaseFilter;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.FilterChainEvent;
import org.glassfish.grizzly.filterchain.NextAction;

import java.io.IOException;

/**
 * Kodiak's HTTP/1.1 server side on the client transport, right above the transport filter:
 * it hands each connection's reads to its {@link ClientConnection}, which parses requests with
 * Kodiak's own codec and starts their exchanges. Responses are written straight to the
 * connection as bytes.
 */
public final class ClientFilter extends BaseFilter {
    private static final Attribute<ClientConnection> STATE =
            Grizzly.DEFAULT_ATTRIBUTE_BUILDER.createAttribute(ClientConnection.class.getName());

    private final ClientSettings settings;
    private final Admission admission;
    private final IdleClock idleClock;
    private final Http2Observer http2Observer;

    public ClientFilter(ClientSettings settings, Admission admission, IdleClock idleClock, Http2Observer http2Observer) {
        this.settings = settings;
        this.admission = admission;
        this.idleClock = idleClock;
        this.http2Observer = http2Observer;
    }

    @Override
    public NextAction handleAccept(FilterChainContext ctx) throws IOException {
        Connection<?> connection = ctx.getConnection();
        ClientConnection client = new ClientConnection(connection, settings, admission, idleClock, http2Observer);
        STATE.set(connection, client);
        idleClock.join(client);
        return ctx.getInvokeAction();
    }

    @Override
    public NextAction handleRead(FilterChainContext ctx) throws IOException {
        ClientConnection client = STATE.get(ctx.getConnection());
        if (client == null) {
            return ctx.getStopAction();
        }
        return PooledBuffers.afterRead(ctx, client.onRead(ctx));
    }

    /** The client shut down its sending side ({@link HalfCloseTransportFilter}). */
    @Override
    public NextAction handleEvent(FilterChainContext ctx, FilterChainEvent event) throws IOException {
        if (event.type() != HalfCloseTransportFilter.InputEnded.TYPE) {
            return ctx.getInvokeAction();
        }
        ClientConnection client = STATE.get(ctx.getConnection());
        if (client == null) {
            ctx.getConnection().closeSilently();
        } else {
            client.onInputEnded();
        }
        return ctx.getStopAction();
    }

    @Override
    public NextAction handleClose(FilterChainContext ctx) throws IOException {
        ClientConnection client = STATE.get(ctx.getConnection());
        if (client != null) {
            client.onClosed();
        }
        return ctx.getInvokeAction();
    }
}
