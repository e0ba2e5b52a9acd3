package io.kodiak.forward;

import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.http.HttpContent;
import org.glassfish.grizzly.http.HttpResponsePacket;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.MemoryManager;

import java.nio.charset.StandardCharsets;

/** Kodiak's own short text/plain answers: errors, never a stack trace. */
final class LocalResponse {
    private LocalResponse() {
    }

    /** A complete response for {@code error}, ready for the client codec to encode. */
    static HttpContent of(HttpResponsePacket response, ProxyError error) {
        return of(response, error, null);
    }

    /** As {@link #of(HttpResponsePacket, ProxyError)}, with what exactly was wrong after the reason when known. */
    static HttpContent of(HttpResponsePacket response, ProxyError error, String detail) {
        response.setStatus(error.status);
        response.getHeaders().setValue("Content-Type").setString("text/plain; charset=utf-8");
        if (error.closeClient) {
            response.getHeaders().setValue("Connection").setString("close");
        }
        byte[] text = (error.status + " " + error.text + (detail == null ? "" : ": " + detail) + "\n").getBytes(StandardCharsets.UTF_8);
        Buffer body = Buffers.wrap(MemoryManager.DEFAULT_MEMORY_MANAGER, text);
        response.setContentLength(text.length);
        return HttpContent.builder(response).content(body).last(true).build();
    }

    /** Writes the answer through {@code ctx}, positioned at the proxy filter, so the codec frames it. */
    static void send(FilterChainContext ctx, HttpResponsePacket response, ProxyError error) {
        ctx.write(of(response, error));
    }
}
