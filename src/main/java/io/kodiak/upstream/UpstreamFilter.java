package io.kodiak.upstream;

import org.glassfish.grizzly.filterchain.BaseFilter;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;
import org.glassfish.grizzly.http.HttpContent;
import org.glassfish.grizzly.http.HttpResponsePacket;

import java.io.IOException;

/**
 * Last filter of the upstream chain: routes response events to the {@link ResponseListener}
 * bound to the connection. A pooled connection with no listener must stay silent, so anything
 * it sends is a protocol violation and the connection is closed rather than reused.
 */
public final class UpstreamFilter extends BaseFilter {

    @Override
    public NextAction handleRead(FilterChainContext ctx) throws IOException {
        UpstreamConnection state = UpstreamConnection.peek(ctx.getConnection());
        ResponseListener listener = state == null ? null : state.listener();
        HttpContent content = ctx.getMessage();
        if (listener == null) {
            content.recycle();
            ctx.getConnection().closeSilently();
            return ctx.getStopAction();
        }
        if (UpstreamCodecFilter.isInterim((HttpResponsePacket) content.getHttpHeader())) {
            // A 102 or 103 before the final response: not relayed (as nginx does not), the final one follows.
            content.recycle();
            return ctx.getStopAction();
        }
        return listener.onResponseContent(ctx, content);
    }

    @Override
    public NextAction handleClose(FilterChainContext ctx) throws IOException {
        UpstreamConnection state = UpstreamConnection.peek(ctx.getConnection());
        ResponseListener listener = state == null ? null : state.closed();
        if (listener != null) {
            listener.onUpstreamClosed();
        }
        return ctx.getInvokeAction();
    }
}
