package io.kodiak.forward;

import io.kodiak.support.Patterns;
import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import io.kodiak.support.TestUpstream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Bodies of any size stream through in both directions, with either framing, byte for byte. */
class BodyStreamingTest {
    private static final long MIB = 1024 * 1024;
    private static TestUpstream upstream;
    private static ProxyHarness proxy;
    private static final HttpClient HTTP = io.kodiak.support.TestTls.httpClient().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeAll
    static void start() throws Exception {
        upstream = TestUpstream.start();
        proxy = ProxyHarness.forUpstream(upstream.url("/"), "");
    }

    @AfterAll
    static void stop() {
        proxy.close();
        upstream.close();
    }

    /** A request body of exactly {@code length} pattern bytes, sent with Content-Length. */
    private static HttpRequest.BodyPublisher fixedLength(long length) {
        if (length == 0) {
            return HttpRequest.BodyPublishers.ofByteArray(new byte[0]);
        }
        return HttpRequest.BodyPublishers.fromPublisher(
                HttpRequest.BodyPublishers.ofInputStream(() -> Patterns.stream(length)), length);
    }

    @ParameterizedTest
    @ValueSource(longs = {0, MIB, 100 * MIB})
    void uploadsArriveIntactWithContentLength(long length) throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(proxy.uri("/digest"))
                .POST(fixedLength(length)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode());
        assertEquals("sha256=" + Patterns.sha256Of(length) + " bytes=" + length, response.body());
    }

    @ParameterizedTest
    @ValueSource(longs = {MIB, 100 * MIB})
    void uploadsArriveIntactWhenChunked(long length) throws Exception {
        // ofInputStream has no known length, so the client sends Transfer-Encoding: chunked.
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(proxy.uri("/digest"))
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> Patterns.stream(length))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode());
        assertEquals("sha256=" + Patterns.sha256Of(length) + " bytes=" + length, response.body());
    }

    @ParameterizedTest
    @ValueSource(longs = {0, MIB, 100 * MIB})
    void downloadsArriveIntactWithContentLength(long length) throws Exception {
        HttpResponse<InputStream> response = HTTP.send(HttpRequest.newBuilder(proxy.uri("/bytes/" + length)).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertEquals(200, response.statusCode());
        assertEquals(String.valueOf(length), response.headers().firstValue("content-length").orElse("absent"));
        try (InputStream body = response.body()) {
            assertEquals(Patterns.sha256Of(length), Patterns.sha256(body));
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {MIB, 100 * MIB})
    void chunkedDownloadsArriveIntactAndStayChunked(long length) throws Exception {
        HttpResponse<InputStream> response = HTTP.send(HttpRequest.newBuilder(proxy.uri("/bytes/" + length + "?chunked")).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertEquals(200, response.statusCode());
        assertEquals("chunked", response.headers().firstValue("transfer-encoding").orElse("absent"));
        try (InputStream body = response.body()) {
            assertEquals(Patterns.sha256Of(length), Patterns.sha256(body));
        }
    }

    @Test
    void theRunOverTlsHasTheSmallHeapItClaims() {
        // pom.xml's forwarding-over-tls execution: its 100 MiB bodies prove streaming only in 64 MiB.
        org.junit.jupiter.api.Assumptions.assumeTrue(io.kodiak.support.TestTls.ON, "the plain run has the default heap");
        assertTrue(Runtime.getRuntime().maxMemory() <= 64 * MIB, "max heap " + Runtime.getRuntime().maxMemory());
    }

    @Test
    void bothDirectionsAtOnceThroughAnEcho() throws Exception {
        // A raw client that writes and reads concurrently: java.net.http reads the response only
        // after sending the whole body, which deadlocks any echo of 100 MiB, proxied or not.
        long length = 100 * MIB;
        try (RawHttp raw = new RawHttp(proxy.port())) {
            raw.send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Type: application/octet-stream\r\n"
                    + "Content-Length: " + length + "\r\n\r\n");
            Thread writer = new Thread(() -> {
                try (InputStream body = Patterns.stream(length)) {
                    byte[] buffer = new byte[64 * 1024];
                    for (int n; (n = body.read(buffer)) != -1; ) {
                        raw.send(java.util.Arrays.copyOf(buffer, n));
                    }
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            writer.start();
            // Hashed as it arrives: the suite also runs under -Xmx64m (pom.xml), proxy and client in one heap.
            RawHttp.Response response = raw.readHead();
            assertEquals(200, response.status());
            assertEquals(Patterns.sha256Of(length), Patterns.sha256(raw.bodyStream(response)));
            writer.join();
        }
    }

    /**
     * Several clients at once, each sending all its requests before reading: responses of mixed
     * sizes, small ones between large ones that fill the socket buffers and are written in parts.
     * The connections share the selector threads, so a buffer given back too early (over TLS, the
     * encrypted output Grizzly reuses) would corrupt another connection's bytes: every body is
     * compared.
     */
    @Test
    void pipelinedResponsesOfMixedSizesToSeveralClientsArriveIntact() throws Exception {
        long[] sizes = {300_000, 17, 8 * MIB, 16_384, 40_000, 1, MIB + 3};
        java.util.concurrent.ExecutorService clients = java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            java.util.List<java.util.concurrent.Future<Integer>> done = new java.util.ArrayList<>();
            for (int c = 0; c < 4; c++) {
                int client = c;
                done.add(clients.submit(() -> {
                    try (RawHttp raw = new RawHttp(proxy.port())) {
                        StringBuilder requests = new StringBuilder();
                        for (int i = 0; i < sizes.length; i++) {
                            requests.append("GET /bytes/").append(sizes[i]).append((i + client) % 2 == 0 ? "?chunked" : "")
                                    .append(" HTTP/1.1\r\nHost: a\r\n\r\n");
                        }
                        raw.send(requests.toString());
                        for (long size : sizes) {
                            RawHttp.Response response = raw.readHead();
                            assertEquals(200, response.status());
                            assertEquals(Patterns.sha256Of(size), Patterns.sha256(raw.bodyStream(response)), "body of " + size);
                        }
                        return sizes.length;
                    }
                }));
            }
            for (java.util.concurrent.Future<Integer> client : done) {
                assertEquals(sizes.length, client.get(60, java.util.concurrent.TimeUnit.SECONDS));
            }
        } finally {
            clients.shutdownNow();
        }
    }

    @Test
    void explicitChunksFromARawClientAreReframedCorrectly() throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            raw.send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "5\r\nhello\r\n1\r\n \r\n6\r\nworld!\r\n0\r\n\r\n");
            RawHttp.Response response = raw.read();
            assertEquals(200, response.status());
            assertEquals("hello world!", response.bodyText());
            // Keep-alive survives a chunked exchange: the next request is framed correctly.
            raw.send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc");
            assertEquals("abc", raw.read().bodyText());
        }
    }

    @Test
    void chunkedRequestWhoseHeaderIsForwardedBeforeAnyBodyByteKeepsItsBody() throws Exception {
        // 100-continue proves the header went upstream alone; the body follows in later reads.
        // Regression: an empty first piece used to be encoded as the zero-length last chunk.
        try (RawHttp raw = new RawHttp(proxy.port())) {
            raw.send("POST /digest HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n");
            assertEquals(100, raw.read().status());
            raw.send("3\r\nabc\r\n");
            raw.send("0\r\n\r\n");
            String expected = Patterns.hex(java.security.MessageDigest.getInstance("SHA-256")
                    .digest("abc".getBytes(StandardCharsets.US_ASCII)));
            assertEquals("sha256=" + expected + " bytes=3", raw.read().bodyText());
        }
    }

    @Test
    void chunkedResponseWhoseHeaderArrivesBeforeAnyBodyByteKeepsItsBody() throws Exception {
        String slowChunks = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + io.kodiak.support.ScriptedUpstream.PAUSE
                + "5\r\nhello\r\n" + io.kodiak.support.ScriptedUpstream.PAUSE + "6\r\n world\r\n0\r\n\r\n";
        try (io.kodiak.support.ScriptedUpstream slow = new io.kodiak.support.ScriptedUpstream(i -> slowChunks, false);
             ProxyHarness chunky = ProxyHarness.forUpstream(slow.url("/"), "");
             RawHttp raw = new RawHttp(chunky.port())) {
            raw.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
            assertEquals("hello world", raw.read().bodyText());
        }
    }

    @Test
    void http10ClientGetsACloseDelimitedOrSizedResponse() throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            raw.send("GET /bytes/1000?chunked HTTP/1.0\r\n\r\n");
            RawHttp.Response response = raw.read();
            assertEquals(200, response.status());
            assertNull(response.header("transfer-encoding"), "HTTP/1.0 clients cannot read chunked");
            assertEquals(1000, response.body.length);
        }
    }

    @Test
    void expectContinueIsAnsweredBeforeTheBodyIsSent() throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            raw.send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n");
            RawHttp.Response interim = raw.read();
            assertEquals(100, interim.status());
            raw.send("ping".getBytes(StandardCharsets.US_ASCII));
            RawHttp.Response response = raw.read();
            assertEquals(200, response.status());
            assertEquals("ping", response.bodyText());
        }
    }
}
