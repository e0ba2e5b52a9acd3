package io.kodiak.admin;

import org.glassfish.grizzly.filterchain.BaseFilter;
import org.glassfish.grizzly.filterchain.FilterChainBuilder;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;
import org.glassfish.grizzly.http.HttpContent;
import org.glassfish.grizzly.http.HttpRequestPacket;
import org.glassfish.grizzly.http.HttpResponsePacket;
import org.glassfish.grizzly.http.Method;
import org.glassfish.grizzly.http.server.AddOn;
import org.glassfish.grizzly.http.server.HttpServerFilter;
import org.glassfish.grizzly.http.server.NetworkListener;
import org.glassfish.grizzly.memory.Buffers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * TRACE on the admin listener answered as any method the admin endpoints do not take: 405 with
 * {@code Allow: GET, HEAD} and {@code Cache-Control: no-store}, the request not echoed. Grizzly
 * answers TRACE before any handler sees it (its own 405 with its own Allow list, or, when enabled,
 * an echo of the request), so this filter stands before its server filter.
 */
final class TraceRefusal extends BaseFilter implements AddOn {
    private static final byte[] BODY = "only GET and HEAD are allowed here\n".getBytes(StandardCharsets.US_ASCII);

    @Override
    public void setup(NetworkListener listener, FilterChainBuilder builder) {
        int server = builder.indexOfType(HttpServerFilter.class);
        builder.add(server, this);
    }

    @Override
    public NextAction handleRead(FilterChainContext ctx) throws IOException {
        Object message = ctx.getMessage();
        if (!(message instanceof HttpContent content) || !(content.getHttpHeader() instanceof HttpRequestPacket request)
                || request.getMethodDC() == null || !Method.TRACE.equals(request.getMethod())) {
            return ctx.getInvokeAction();
        }
        if (!content.isLast()) {
            // The rest of its body is dropped; the answer goes once the request is whole.
            return ctx.getStopAction();
        }
        HttpResponsePacket response = HttpResponsePacket.builder(request)
                .status(405).reasonPhrase("Method Not Allowed")
                .contentType("text/plain; charset=utf-8")
                .contentLength(BODY.length)
                .header("Allow", "GET, HEAD")
                .header("Cache-Control", "no-store")
                .build();
        response.getHeaders().setValue("Connection").setString("close");
        ctx.write(HttpContent.builder(response).content(Buffers.wrap(ctx.getMemoryManager(), BODY)).last(true).build());
        // Once the answer is out (a graceful close).
        ctx.getConnection().closeSilently();
        return ctx.getStopAction();
    }
}
