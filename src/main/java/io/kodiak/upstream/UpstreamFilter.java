package io.kodiak.upstream;

import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.Grizzly;
import org.glassfish.grizzly.attributes.Attribute;
import org.glassfish.grizzly.filterchain.BaseFilter;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;
import org.glassfish.grizzly.http.HttpContent;

import java.io.IOException;

/**
 * Last filter of the upstream chain: routes response events to the {@link ResponseListener}
 * bound to the connection. A pooled connection with no listener must stay silent, so anything
 * it sends is a protocol violation and the connection is closed rather than reused.
 */
public final class UpstreamFilter extends BaseFilter {
    private static final Attribute<ResponseListener> LISTENER =
            Grizzly.DEFAULT_ATTRIBUTE_BUILDER.createAttribute(UpstreamFilter.class.getName() + ".listener");

    public static void bind(Connection<?> connection, ResponseListener listener) {
        LISTENER.set(connection, listener);
    }

    /** Unbinds only if {@code listener} is still the bound one, so a late caller cannot unbind a successor. */
    public static void unbind(Connection<?> connection, ResponseListener listener) {
        if (LISTENER.get(connection) == listener) {
            LISTENER.remove(connection);
        }
    }

    @Override
    public NextAction handleRead(FilterChainContext ctx) throws IOException {
        ResponseListener listener = LISTENER.get(ctx.getConnection());
        HttpContent content = ctx.getMessage();
        if (listener == null) {
            content.recycle();
            ctx.getConnection().closeSilently();
            return ctx.getStopAction();
        }
        return listener.onResponseContent(ctx, content);
    }

    @Override
    public NextAction handleClose(FilterChainContext ctx) throws IOException {
        ResponseListener listener = LISTENER.remove(ctx.getConnection());
        if (listener != null) {
            listener.onUpstreamClosed();
        }
        return ctx.getInvokeAction();
    }
}
