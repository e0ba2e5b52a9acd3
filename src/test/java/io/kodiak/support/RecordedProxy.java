package io.kodiak.support;

import java.io.IOException;
import java.util.List;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Kodiak in front of a {@link RecordingUpstream}, with the two assertions every hostile-input
 * test makes: a request that must be refused gets its status and a closed connection, nothing of
 * it reaches the upstream as a request, and the next client is served; a request that must pass
 * arrives exactly once, as the reference parser reads it, with nothing else beside it.
 */
public final class RecordedProxy implements AutoCloseable {
    private final RecordingUpstream upstream;
    private final ProxyHarness proxy;
    private final ProxyReads reads;

    private RecordedProxy(RecordingUpstream upstream, ProxyHarness proxy) {
        this.upstream = upstream;
        this.proxy = proxy;
        this.reads = ProxyReads.on(proxy.kodiak());
    }

    /** The proxy's reads on each connection, for a test that sends a message in parts. */
    public ProxyReads reads() {
        return reads;
    }

    /** Routes "/" to an upstream that echoes each request's body. */
    public static RecordedProxy start() throws IOException {
        return start(RecordingUpstream.ECHO);
    }

    public static RecordedProxy start(Function<RecordingUpstream.Received, String> responder) throws IOException {
        RecordingUpstream upstream = new RecordingUpstream(responder);
        return new RecordedProxy(upstream, ProxyHarness.forUpstream(upstream.url("/"), ""));
    }

    public RecordingUpstream upstream() {
        return upstream;
    }

    public int port() {
        return proxy.port();
    }

    /**
     * {@code request} is answered with {@code status} (its reason starting with {@code reasonStart}),
     * the connection is closed, the upstream received no request and no byte of what followed
     * the refused part, and a new client is served normally afterwards.
     */
    public RawHttp.Response assertRefused(String request, int status, String reasonStart) throws Exception {
        RawHttp.Response response;
        long errorsBefore = errors();
        try (RawHttp raw = new RawHttp(proxy.port())) {
            response = raw.send(request).read();
            assertEquals(errorsBefore + 1, errors(), "the refusal is counted among the errors by cause");
            assertEquals(status, response.status(), response.bodyText());
            assertTrue(response.bodyText().startsWith(status + " " + reasonStart), response.bodyText());
            assertTrue(raw.closedByPeer(), "connection closed after " + status);
        }
        // An upstream connection opened for the refused request is closed, never pooled: once it
        // is, everything it carried has been parsed.
        Await.await(() -> upstream.openConnections() == 0, "the upstream connection of the refused request to close");
        assertEquals(List.of(), upstream.received(), "requests that reached the upstream");
        assertEquals(List.of(), upstream.violations(), "what the reference parser refused");
        assertServesNextClient();
        return response;
    }

    /** Kodiak's errors so far, by cause. */
    public java.util.Map<String, Long> errorCounts() {
        return proxy.kodiak().services().errorCounts();
    }

    private long errors() {
        return errorCounts().values().stream().mapToLong(Long::longValue).sum();
    }

    /** A fresh client gets its answer: the refusal left Kodiak and the upstream side usable. */
    public void assertServesNextClient() throws Exception {
        int before = upstream.received().size();
        try (RawHttp raw = new RawHttp(proxy.port())) {
            assertEquals("ok", raw.send("GET /next HTTP/1.1\r\nHost: a\r\n\r\n").read().bodyText());
        }
        assertEquals(before + 1, upstream.received().size());
        assertEquals("/next", upstream.received().get(before).target());
    }

    /** {@code request} is answered 200, and the upstream received it as exactly one valid request, returned. */
    public RecordingUpstream.Received assertForwarded(String request) throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            RawHttp.Response response = raw.send(request).read();
            assertEquals(200, response.status(), response.bodyText());
        }
        return single();
    }

    /** As {@link #assertForwarded(String)}, with the request written one byte per TCP segment. */
    public RecordingUpstream.Received assertForwardedByteByByte(String request) throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            raw.sendByteByByte(request, reads);
            RawHttp.Response response = raw.read();
            assertEquals(200, response.status(), response.bodyText());
        }
        return single();
    }

    private RecordingUpstream.Received single() {
        assertEquals(List.of(), upstream.violations(), "what the reference parser refused");
        assertEquals(1, upstream.received().size(), "requests that reached the upstream");
        return upstream.received().get(0);
    }

    @Override
    public void close() throws IOException {
        proxy.close();
        upstream.close();
    }
}
