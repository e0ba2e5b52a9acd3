package io.kodiak.h2.upstream;

import io.kodiak.support.Await;
import io.kodiak.support.H2Client;
import io.kodiak.support.Patterns;
import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import io.kodiak.support.TestTls;
import io.kodiak.tls.TestCertificates;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.http2.server.HTTP2ServerConnectionFactory;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * HTTP/2 to upstream servers: Kodiak in front of a real HTTP/2 server (an embedded Jetty 12 that
 * speaks h2c with prior knowledge only, or h2 over TLS chosen by ALPN), with HTTP/1.1 and HTTP/2
 * clients. Every test looks at what the upstream received (method, target, :authority, fields,
 * the body's digest, HTTP/2.0 as its protocol) as well as what the client got back.
 *
 * <p>The h2 clients: on the plain listener the support {@link H2Client} (raw frames, h2c prior
 * knowledge, which the JDK's HttpClient does not do); in the TLS suite the JDK's HttpClient, which
 * picks h2 by ALPN. {@link #clientsAndUpstreamsWorkDirectlyToTheUpstream} points every client and
 * server here at each other without Kodiak, so a failure elsewhere is Kodiak's.
 */
class Http2UpstreamTest {
    private static final long MIB = 1024 * 1024;
    /**
     * The large body of {@link #aLargeBodyEachWayThroughOneStreamArrivesIntact}: 100 MiB each way
     * through one upstream stream. It goes up and comes back at the same time (the upstream
     * echoes as it reads), so nothing can hold it whole; 32 MiB is the fallback should it take
     * more than about 20 s on a 2-core machine.
     */
    private static final long LARGE = 100 * MIB;
    private static final String GROUP = "h2up";
    private static final List<String> CONNECTION_SPECIFIC =
            List.of("connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "x-hop");

    @TempDir
    Path dir;
    private JettyUpstream upstream;
    private ProxyHarness proxy;
    private final List<AutoCloseable> closeAfter = new ArrayList<>();

    @BeforeEach
    void startUpstream() throws Exception {
        upstream = JettyUpstream.h2c("a", 0);
    }

    @AfterEach
    void stopAll() throws Exception {
        if (proxy != null) {
            proxy.close();
        }
        for (AutoCloseable opened : closeAfter) {
            opened.close();
        }
        upstream.close();
    }

    // ---- configuration (the contract: proxy.upstream.protocol, a group's protocol, a route's protocol)

    /** Group GROUP of {@code url} spoken to over h2; routes: "/" to it, and "/kept/" to it with preserve-host. */
    private ProxyHarness groupProxy(String url, String groupExtra) throws IOException {
        proxy = ProxyHarness.start(group(GROUP, url, groupExtra) + """
                proxy.routes = [
                  { prefix = "/kept/", upstream = "http://%1$s/headers/", preserve-host = true }
                  { prefix = "/", upstream = "http://%1$s/" }
                ]
                """.formatted(GROUP));
        return proxy;
    }

    private ProxyHarness groupProxy() throws IOException {
        return groupProxy(upstream.url(), "");
    }

    private static String group(String name, String url, String extra) {
        return "proxy.upstreams." + name + " { protocol = \"h2\", servers = [ { url = \"" + url + "\" } ]\n" + extra + "\n}\n";
    }

    private HttpClient http11() {
        return TestTls.httpClient().version(HttpClient.Version.HTTP_1_1).build();
    }

    // ---- HTTP/1.1 clients to an h2 upstream

    @Test
    void anHttp11GetArrivesOverHttp2WithoutConnectionSpecificFields() throws Exception {
        groupProxy();
        try (RawHttp raw = new RawHttp(proxy.port())) {
            raw.send("GET /headers/x?q=1&r=%20 HTTP/1.1\r\nHost: front.example\r\nConnection: keep-alive, x-hop\r\n"
                    + "Keep-Alive: timeout=5\r\nX-Hop: 1\r\nProxy-Connection: keep-alive\r\nAccept: text/plain\r\n"
                    + "X-Custom: one\r\nX-Custom: two\r\n\r\n");
            RawHttp.Response response = raw.read();
            assertEquals(200, response.status(), response.bodyText());
            assertEquals("a", response.header("x-upstream"), "the upstream's own response field comes back");
            Seen seen = upstream.seen("/headers/x?q=1&r=%20");
            assertEquals("GET", seen.method());
            assertEquals("HTTP/2.0", seen.version());
            assertEquals("http", seen.scheme());
            // reference.conf: requests to a group carry the group's name as their host unless the route preserves it.
            assertEquals(GROUP, seen.authority(), seen.toString());
            assertTrue(seen.header("host") == null || seen.header("host").equals(seen.authority()), seen.toString());
            assertNoConnectionSpecificFields(seen);
            assertEquals(List.of("one", "two"), seen.headers("x-custom"), seen.toString());
            assertEquals("text/plain", seen.header("accept"));
            assertNotNull(seen.header("x-forwarded-for"), seen.toString());
            assertTrue(seen.header("x-forwarded-for").endsWith("127.0.0.1"), seen.toString());
            assertTrue(response.bodyText().startsWith("GET /headers/x?q=1&r=%20 HTTP/2.0\n"), response.bodyText());

            // The same client connection goes on: preserve-host sends the client's Host as :authority.
            raw.send("GET /kept/y HTTP/1.1\r\nHost: front.example:8080\r\n\r\n");
            RawHttp.Response kept = raw.read();
            assertEquals(200, kept.status(), kept.bodyText());
            Seen keptSeen = upstream.seen("/headers/y");
            assertEquals("front.example:8080", keptSeen.authority(), keptSeen.toString());
            assertEquals("HTTP/2.0", keptSeen.version());
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void anHttp11PostOf5MiBArrivesWholeAndComesBack(boolean chunked) throws Exception {
        groupProxy();
        long length = 5 * MIB;
        assertEquals(Patterns.sha256Of(length), echoThroughProxy("/echo/5m", length, chunked));
        Seen seen = upstream.seen("/echo/5m");
        assertEquals("POST", seen.method());
        assertEquals("HTTP/2.0", seen.version());
        assertEquals(length, seen.bodyBytes());
        assertEquals(Patterns.sha256Of(length), seen.bodySha256());
        assertNoConnectionSpecificFields(seen);
        assertTrue(seen.header("content-length") == null || seen.header("content-length").equals(String.valueOf(length)),
                seen.toString());
    }

    @Test
    void headNoContentAndNotFoundComeBackAsTheUpstreamAnswered() throws Exception {
        groupProxy();
        try (RawHttp raw = new RawHttp(proxy.port())) {
            raw.send("HEAD /big?n=1000 HTTP/1.1\r\nHost: a\r\n\r\n");
            RawHttp.Response head = raw.read(true);
            assertEquals(200, head.status());
            assertEquals("1000", head.header("content-length"), head.headers.toString());
            assertEquals("HEAD", upstream.seen("/big?n=1000").method());

            raw.send("GET /status/204 HTTP/1.1\r\nHost: a\r\n\r\n");
            RawHttp.Response noContent = raw.read();
            assertEquals(204, noContent.status());
            assertEquals(0, noContent.body.length);

            raw.send("GET /status/404 HTTP/1.1\r\nHost: a\r\n\r\n");
            RawHttp.Response notFound = raw.read();
            assertEquals(404, notFound.status());
            assertEquals("status 404\n", notFound.bodyText());

            // Each answer was framed right: the connection still carries a request and its body.
            raw.send("GET /big?n=3000 HTTP/1.1\r\nHost: a\r\n\r\n");
            RawHttp.Response big = raw.read();
            assertEquals(200, big.status());
            assertArrayEquals(Patterns.bytes(3000), big.body);
            for (String target : List.of("/status/204", "/status/404", "/big?n=3000")) {
                assertEquals("HTTP/2.0", upstream.seen(target).version(), target);
            }
        }
        HttpResponse<String> viaJdk = http11().send(HttpRequest.newBuilder(proxy.uri("/status/404")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(404, viaJdk.statusCode());
        assertEquals(HttpClient.Version.HTTP_1_1, viaJdk.version());
    }

    // ---- h2 clients to an h2 upstream

    @Test
    void anH2ClientReachesAnH2Upstream() throws Exception {
        groupProxy();
        byte[] body = Patterns.bytes(60_000); // under the 65,535-byte windows H2Client does not wait for
        try (H2Exchanges client = h2Client()) {
            List<Reply> replies = client.send(List.of(
                    new Ask("GET", "/headers/h2?v=1", null, "x-from", "h2-client"),
                    new Ask("POST", "/echo/h2", body, "content-type", "application/octet-stream")));
            Reply get = replies.get(0);
            assertEquals(200, get.status(), get.text());
            assertEquals("a", get.headers().get("x-upstream"));
            assertTrue(get.text().startsWith("GET /headers/h2?v=1 HTTP/2.0\n"), get.text());
            Seen seen = upstream.seen("/headers/h2?v=1");
            assertEquals("HTTP/2.0", seen.version());
            assertEquals(GROUP, seen.authority());
            assertEquals("h2-client", seen.header("x-from"));
            assertNoConnectionSpecificFields(seen);

            Reply post = replies.get(1);
            assertEquals(200, post.status());
            assertArrayEquals(body, post.body());
            Seen echoed = upstream.seen("/echo/h2");
            assertEquals("POST", echoed.method());
            assertEquals(body.length, echoed.bodyBytes());
            assertEquals("application/octet-stream", echoed.header("content-type"));
        }
    }

    @Test
    void aHundredConcurrentStreamsAreAllAnsweredOverFewUpstreamConnections() throws Exception {
        groupProxy();
        List<Ask> asks = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            asks.add(new Ask("GET", "/headers/c?i=" + i, null, "x-i", String.valueOf(i)));
        }
        try (H2Exchanges client = h2Client()) {
            List<Reply> replies = client.send(asks);
            for (int i = 0; i < 100; i++) {
                Reply reply = replies.get(i);
                assertEquals(200, reply.status(), "request " + i + ": " + reply.text());
                assertTrue(reply.text().startsWith("GET /headers/c?i=" + i + " HTTP/2.0\n"), reply.text());
                Seen seen = upstream.seen("/headers/c?i=" + i);
                assertEquals(String.valueOf(i), seen.header("x-i"));
                assertEquals("HTTP/2.0", seen.version());
            }
        }
        // Kodiak keeps h2 upstream connections per event loop (usually 2): streams share them.
        assertTrue(upstream.connectionsOpened() <= 4, "upstream connections: " + upstream.connectionsOpened());
    }

    // ---- trailers

    @Test
    void anHttp11ClientThatAcceptsTrailersGetsTheUpstreamsTrailers() throws Exception {
        groupProxy();
        try (Socket socket = TestTls.connect(proxy.port())) {
            socket.setSoTimeout(20_000);
            send(socket, "GET /trailers HTTP/1.1\r\nHost: a\r\nTE: trailers\r\n\r\n");
            Wire response = Wire.read(socket.getInputStream(), false);
            assertEquals(200, response.status());
            assertEquals("chunked", response.header("transfer-encoding"), "trailers need chunked framing: " + response);
            assertArrayEquals(Patterns.bytes(JettyUpstream.TRAILERS_BODY), response.body());
            assertEquals(Patterns.sha256Of(JettyUpstream.TRAILERS_BODY), response.trailer("x-checksum"), response.toString());
            assertEquals("2", response.trailer("x-second"), response.toString());
            assertEquals("HTTP/2.0", upstream.seen("/trailers").version());
        }
    }

    @Test
    void anHttp11ClientThatDidNotAskForTrailersGetsTheBodyWithout() throws Exception {
        groupProxy();
        try (Socket socket = TestTls.connect(proxy.port())) {
            socket.setSoTimeout(20_000);
            send(socket, "GET /trailers HTTP/1.1\r\nHost: a\r\n\r\n");
            InputStream in = socket.getInputStream();
            Wire response = Wire.read(in, false);
            assertEquals(200, response.status());
            assertArrayEquals(Patterns.bytes(JettyUpstream.TRAILERS_BODY), response.body());
            assertEquals(List.of(), response.trailers(), response.toString());
            assertNull(response.header("x-checksum"), "a trailer is not turned into a header field: " + response);
            assertEquals("HTTP/2.0", upstream.seen("/trailers").version());
            // The framing was right: the next response on the connection reads cleanly.
            send(socket, "GET /big?n=10 HTTP/1.1\r\nHost: a\r\n\r\n");
            assertArrayEquals(Patterns.bytes(10), Wire.read(in, false).body());
        }
    }

    // ---- a large body each way

    /** LARGE each way through one upstream stream, up and back at once; the digests of both sides compared. */
    @Test
    void aLargeBodyEachWayThroughOneStreamArrivesIntact() throws Exception {
        groupProxy();
        String expected = Patterns.sha256Of(LARGE);
        assertEquals(expected, echoThroughProxy("/echo/large", LARGE, false), "what came back");
        Seen seen = upstream.seen("/echo/large");
        assertEquals(LARGE, seen.bodyBytes(), "what the upstream received");
        assertEquals(expected, seen.bodySha256(), "what the upstream received");
        assertEquals("HTTP/2.0", seen.version());
    }

    // ---- the upstream goes away and comes back

    @Test
    void anUpstreamThatStopsGracefullyAndRestartsIsReconnected() throws Exception {
        groupProxy();
        HttpClient client = http11();
        HttpResponse<String> before = client.send(HttpRequest.newBuilder(proxy.uri("/headers/before")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, before.statusCode(), before.body());
        assertEquals("a", before.headers().firstValue("x-upstream").orElse("none"));
        assertTrue(upstream.connectionsOpenNow() >= 1, "Kodiak keeps its h2 connection open between requests");

        // Jetty's graceful stop: GOAWAY on the idle connection, then the close (the direct check proves the GOAWAY).
        int port = upstream.port();
        upstream.stop();
        assertEquals(0, upstream.connectionsOpenNow());
        upstream = JettyUpstream.h2c("b", port);

        HttpResponse<String> after = client.send(HttpRequest.newBuilder(proxy.uri("/headers/after")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, after.statusCode(), after.body());
        assertEquals("b", after.headers().firstValue("x-upstream").orElse("none"), "served by the restarted upstream");
        assertEquals("HTTP/2.0", upstream.seen("/headers/after").version(), "on a new connection, to the restarted upstream");
    }

    // ---- https:// upstreams: h2 by ALPN

    @Test
    void anHttpsUpstreamThatSelectsH2ByAlpnIsSpokenToOverH2() throws Exception {
        TestCertificates certificates = new TestCertificates(dir);
        JettyUpstream secure = JettyUpstream.tls("tls-h2", upstreamContext(certificates), "h2");
        closeAfter.add(secure);
        groupProxy(secure.url(), trust(certificates));
        HttpResponse<String> response = http11().send(HttpRequest.newBuilder(proxy.uri("/headers/secure")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
        assertEquals("tls-h2", response.headers().firstValue("x-upstream").orElse("none"));
        Seen seen = secure.seen("/headers/secure");
        assertEquals("HTTP/2.0", seen.version());
        assertEquals("https", seen.scheme());
        assertEquals(GROUP, seen.authority());
        assertNoConnectionSpecificFields(seen);
    }

    @Test
    void anHttpsUpstreamThatOffersOnlyHttp11ByAlpnFailsTheRequestWith502() throws Exception {
        TestCertificates certificates = new TestCertificates(dir);
        JettyUpstream http11Only = JettyUpstream.tls("tls-h1", upstreamContext(certificates), "http/1.1");
        closeAfter.add(http11Only);
        groupProxy(http11Only.url(), trust(certificates));
        HttpResponse<String> response = http11().send(HttpRequest.newBuilder(proxy.uri("/headers/refused")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(502, response.statusCode(), response.body());
        assertEquals(0, http11Only.requests(), "no request reached the HTTP/1.1-only upstream: " + http11Only.seenTargets());
    }

    private static SSLContext upstreamContext(TestCertificates certificates) throws Exception {
        return certificates.serverContext(certificates.leaf("upstream", Duration.ofDays(30), "localhost", "127.0.0.1"));
    }

    private static String trust(TestCertificates certificates) {
        return "tls { trust = \"" + certificates.ca().certificateFile() + "\" }";
    }

    // ---- every way the configuration names h2

    @ParameterizedTest
    @ValueSource(strings = {"group", "route", "proxy.upstream", "group inheriting proxy.upstream"})
    void eachWayOfAskingForH2ReachesTheUpstreamOverH2(String where) throws Exception {
        String url = upstream.url();
        String expectedAuthority = switch (where) {
            case "group" -> {
                groupProxy();
                yield GROUP;
            }
            case "route" -> {
                proxy = ProxyHarness.start("proxy.routes = [ { prefix = \"/\", upstream = \"" + url + "/\", protocol = \"h2\" } ]\n");
                yield "127.0.0.1:" + upstream.port();
            }
            case "proxy.upstream" -> {
                proxy = ProxyHarness.forUpstream(url + "/", "proxy.upstream.protocol = \"h2\"\n");
                yield "127.0.0.1:" + upstream.port();
            }
            default -> {
                proxy = ProxyHarness.start("proxy.upstream.protocol = \"h2\"\nproxy.upstreams.inherits { servers = [ { url = \""
                        + url + "\" } ] }\nproxy.routes = [ { prefix = \"/\", upstream = \"http://inherits/\" } ]\n");
                yield "inherits";
            }
        };
        HttpResponse<String> response = http11().send(HttpRequest.newBuilder(proxy.uri("/headers/way")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
        Seen seen = upstream.seen("/headers/way");
        assertEquals("HTTP/2.0", seen.version());
        assertEquals(expectedAuthority, seen.authority());
    }

    // ---- the clients and servers above, without Kodiak

    /**
     * The sanity check of this class's own pieces, pointed straight at each other: H2Client to the
     * h2c upstream (every endpoint, its trailers, and the GOAWAY of Jetty's graceful stop); the
     * HTTP/1.1 clients (RawHttp, the trailer-keeping reader, the full-duplex echo) to the same
     * handler on an HTTP/1.1 connector; the JDK's HttpClient to the TLS upstreams (ALPN picks h2 on
     * one, http/1.1 on the other).
     */
    @Test
    void clientsAndUpstreamsWorkDirectlyToTheUpstream() throws Exception {
        try (H2Client h2 = H2Client.connect(upstream.port())) {
            H2Client.Response get = h2.response(h2.request("GET", "/headers/d?x=1", null, "x-from", "direct"));
            assertEquals(200, get.status());
            assertTrue(get.bodyText().startsWith("GET /headers/d?x=1 HTTP/2.0\n:scheme: http\n:authority: proxy.test\n"),
                    get.bodyText());
            assertEquals("direct", upstream.seen("/headers/d?x=1").header("x-from"));
            byte[] body = Patterns.bytes(60_000);
            H2Client.Response echo = h2.response(h2.request("POST", "/echo/d", body));
            assertArrayEquals(body, echo.body());
            assertEquals(Patterns.sha256Of(body.length), upstream.seen("/echo/d").bodySha256());
            H2Client.Response trailers = h2.response(h2.request("GET", "/trailers", null, "te", "trailers"));
            assertArrayEquals(Patterns.bytes(JettyUpstream.TRAILERS_BODY), trailers.body());
            assertEquals(Patterns.sha256Of(JettyUpstream.TRAILERS_BODY), trailers.headers().get("x-checksum"));
            H2Client.Response head = h2.response(h2.request("HEAD", "/big?n=1000", null));
            assertEquals("1000", head.headers().get("content-length"));
            assertEquals(0, head.body().length);
            assertEquals(204, h2.response(h2.request("GET", "/status/204", null)).status());
            assertEquals("status 404\n", h2.response(h2.request("GET", "/status/404", null)).bodyText());
            assertEquals(1, upstream.connectionsOpened());
            assertEquals(1, upstream.connectionsOpenNow());

            CompletableFuture<Void> stopping = CompletableFuture.runAsync(upstream::stop);
            H2Client.Frame goAway = h2.until(H2Client.GOAWAY);
            assertEquals(0, goAway.errorCode(), "NO_ERROR");
            stopping.get(10, TimeUnit.SECONDS);
            assertTrue(h2.closedByServer());
        }

        try (JettyUpstream http11 = JettyUpstream.http11("h1")) {
            try (Socket socket = new Socket("127.0.0.1", http11.port())) {
                socket.setSoTimeout(20_000);
                send(socket, "GET /trailers HTTP/1.1\r\nHost: a\r\nTE: trailers\r\n\r\n");
                Wire trailers = Wire.read(socket.getInputStream(), false);
                assertEquals("chunked", trailers.header("transfer-encoding"));
                assertArrayEquals(Patterns.bytes(JettyUpstream.TRAILERS_BODY), trailers.body());
                assertEquals(Patterns.sha256Of(JettyUpstream.TRAILERS_BODY), trailers.trailer("x-checksum"), trailers.toString());
                send(socket, "HEAD /big?n=1000 HTTP/1.1\r\nHost: a\r\n\r\n");
                Wire head = Wire.read(socket.getInputStream(), true);
                assertEquals("1000", head.header("content-length"));
                send(socket, "GET /status/404 HTTP/1.1\r\nHost: a\r\n\r\n");
                assertEquals("status 404\n", new String(Wire.read(socket.getInputStream(), false).body(), StandardCharsets.UTF_8));
            }
            for (boolean chunked : new boolean[] {false, true}) {
                assertEquals(Patterns.sha256Of(5 * MIB), echoFullDuplex(new RawHttp(new Socket("127.0.0.1", http11.port())),
                        "/echo/d5", 5 * MIB, chunked));
                assertEquals(Patterns.sha256Of(5 * MIB), http11.seen("/echo/d5").bodySha256());
            }
            HttpResponse<String> jdk = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(
                    HttpRequest.newBuilder(URI.create(http11.url() + "/headers/jdk")).build(), HttpResponse.BodyHandlers.ofString());
            assertTrue(jdk.body().startsWith("GET /headers/jdk HTTP/1.1\n"), jdk.body());
        }

        TestCertificates certificates = new TestCertificates(dir);
        SSLContext context = upstreamContext(certificates);
        HttpClient trusting = HttpClient.newBuilder().sslContext(certificates.clientContext(null))
                .version(HttpClient.Version.HTTP_2).build();
        try (JettyUpstream secureH2 = JettyUpstream.tls("tls-h2", context, "h2");
             JettyUpstream secureH1 = JettyUpstream.tls("tls-h1", context, "http/1.1")) {
            HttpResponse<String> h2 = trusting.send(HttpRequest.newBuilder(URI.create(secureH2.url() + "/headers/t")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(HttpClient.Version.HTTP_2, h2.version());
            assertTrue(h2.body().startsWith("GET /headers/t HTTP/2.0\n:scheme: https\n"), h2.body());
            HttpResponse<String> h1 = trusting.send(HttpRequest.newBuilder(URI.create(secureH1.url() + "/headers/t")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(HttpClient.Version.HTTP_1_1, h1.version(), "ALPN: this one selects http/1.1");
            assertEquals(200, h1.statusCode());
        }
    }

    // ---- helpers

    private static void assertNoConnectionSpecificFields(Seen seen) {
        for (String name : CONNECTION_SPECIFIC) {
            assertNull(seen.header(name), name + " reached the h2 upstream: " + seen);
        }
        assertTrue(seen.header("te") == null || seen.header("te").equals("trailers"), seen.toString());
    }

    private static void send(Socket socket, String ascii) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(ascii.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    /** POSTs {@code length} pattern bytes to {@code path} through Kodiak over HTTP/1.1; the digest of what came back. */
    private String echoThroughProxy(String path, long length, boolean chunked) throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            return echoFullDuplex(raw, path, length, chunked);
        }
    }

    /**
     * Sends the body on a thread of its own while this one reads the answer: an echo streams back
     * as it reads, so a client that sent everything first would stall it (java.net.http does).
     */
    private static String echoFullDuplex(RawHttp raw, String path, long length, boolean chunked) throws Exception {
        try (raw) {
            raw.send("POST " + path + " HTTP/1.1\r\nHost: a\r\nContent-Type: application/octet-stream\r\n"
                    + (chunked ? "Transfer-Encoding: chunked\r\n" : "Content-Length: " + length + "\r\n") + "\r\n");
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                try (InputStream body = Patterns.stream(length)) {
                    byte[] buffer = new byte[64 * 1024];
                    for (int n; (n = body.read(buffer)) != -1; ) {
                        if (chunked) {
                            raw.send(Integer.toHexString(n) + "\r\n");
                        }
                        raw.send(java.util.Arrays.copyOf(buffer, n));
                        if (chunked) {
                            raw.send("\r\n");
                        }
                    }
                    if (chunked) {
                        raw.send("0\r\n\r\n");
                    }
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            RawHttp.Response response = raw.readHead();
            assertEquals(200, response.status(), response.toString());
            String digest = Patterns.sha256(raw.bodyStream(response));
            writer.get(30, TimeUnit.SECONDS);
            return digest;
        }
    }

    // ---- h2 clients: raw frames on the plain listener, the JDK's client over TLS

    private record Ask(String method, String path, byte[] body, String... fields) {
    }

    private record Reply(int status, Map<String, String> headers, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /** One h2 connection to Kodiak carrying every request given to {@link #send} at once. */
    private interface H2Exchanges extends AutoCloseable {
        List<Reply> send(List<Ask> asks) throws Exception;

        @Override
        void close();
    }

    private H2Exchanges h2Client() throws IOException {
        return TestTls.ON ? new JdkH2(proxy) : new RawH2(H2Client.connect(proxy.port()));
    }

    /** h2c with prior knowledge: every stream opened before any response is read. */
    private record RawH2(H2Client client) implements H2Exchanges {
        @Override
        public List<Reply> send(List<Ask> asks) throws IOException {
            List<Integer> streams = new ArrayList<>();
            for (Ask ask : asks) {
                streams.add(client.request(ask.method(), ask.path(), ask.body(), ask.fields()));
            }
            List<Reply> replies = new ArrayList<>();
            for (int stream : streams) {
                H2Client.Response response = client.response(stream);
                assertEquals(-1, response.reset(), "stream " + stream + " was reset");
                replies.add(new Reply(response.status(), response.headers(), response.body()));
            }
            return replies;
        }

        @Override
        public void close() {
            client.close();
        }
    }

    /**
     * h2 over TLS by ALPN. The first request goes alone, so that the rest find its connection
     * open and share it rather than each racing to open one.
     */
    private record JdkH2(ProxyHarness proxy, HttpClient client) implements H2Exchanges {
        JdkH2(ProxyHarness proxy) {
            this(proxy, TestTls.httpClient().version(HttpClient.Version.HTTP_2).build());
        }

        @Override
        public List<Reply> send(List<Ask> asks) throws Exception {
            List<CompletableFuture<HttpResponse<byte[]>>> pending = new ArrayList<>();
            for (int i = 0; i < asks.size(); i++) {
                Ask ask = asks.get(i);
                HttpRequest.Builder request = HttpRequest.newBuilder(proxy.uri(ask.path())).method(ask.method(),
                        ask.body() == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(ask.body()));
                for (int f = 0; f < ask.fields().length; f += 2) {
                    request.header(ask.fields()[f], ask.fields()[f + 1]);
                }
                CompletableFuture<HttpResponse<byte[]>> response = client.sendAsync(request.build(),
                        HttpResponse.BodyHandlers.ofByteArray());
                if (i == 0) {
                    response.get(20, TimeUnit.SECONDS);
                }
                pending.add(response);
            }
            List<Reply> replies = new ArrayList<>();
            for (CompletableFuture<HttpResponse<byte[]>> future : pending) {
                HttpResponse<byte[]> response = future.get(30, TimeUnit.SECONDS);
                assertEquals(HttpClient.Version.HTTP_2, response.version());
                Map<String, String> headers = new LinkedHashMap<>();
                response.headers().map().forEach((name, values) -> headers.put(name.toLowerCase(Locale.ROOT), String.join(", ", values)));
                replies.add(new Reply(response.statusCode(), headers, response.body()));
            }
            return replies;
        }

        @Override
        public void close() {
            // the JDK's client closes its connections when it is collected
        }
    }

    // ---- an HTTP/1.1 response as it came off the wire, trailer section included (RawHttp skips it)

    private record Wire(int status, List<String[]> headers, byte[] body, List<String> trailers) {
        String header(String name) {
            return headers.stream().filter(h -> h[0].equals(name)).map(h -> h[1]).findFirst().orElse(null);
        }

        /** The value of trailer field {@code name}, or null. */
        String trailer(String name) {
            for (String line : trailers) {
                int colon = line.indexOf(':');
                if (line.substring(0, colon).trim().equalsIgnoreCase(name)) {
                    return line.substring(colon + 1).trim();
                }
            }
            return null;
        }

        @Override
        public String toString() {
            StringBuilder s = new StringBuilder().append(status);
            headers.forEach(h -> s.append(" | ").append(h[0]).append(": ").append(h[1]));
            return s.append(" | body ").append(body.length).append(" bytes | trailers ").append(trailers).toString();
        }

        static Wire read(InputStream in, boolean head) throws IOException {
            String statusLine = line(in);
            int status = Integer.parseInt(statusLine.split(" ")[1]);
            List<String[]> headers = new ArrayList<>();
            for (String line; !(line = line(in)).isEmpty(); ) {
                int colon = line.indexOf(':');
                headers.add(new String[] {line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim()});
            }
            Wire wire = new Wire(status, headers, new byte[0], new ArrayList<>());
            if (head || status == 204 || status == 304) {
                return wire;
            }
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            List<String> trailers = new ArrayList<>();
            if ("chunked".equalsIgnoreCase(wire.header("transfer-encoding"))) {
                for (int size; (size = Integer.parseInt(line(in).split(";")[0].trim(), 16)) > 0; ) {
                    body.write(in.readNBytes(size));
                    if (!line(in).isEmpty()) {
                        throw new IOException("no CRLF after a chunk");
                    }
                }
                for (String line; !(line = line(in)).isEmpty(); ) {
                    trailers.add(line);
                }
            } else {
                int length = Integer.parseInt(wire.header("content-length"));
                body.write(in.readNBytes(length));
            }
            return new Wire(status, headers, body.toByteArray(), trailers);
        }

        private static String line(InputStream in) throws IOException {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            for (int b; (b = in.read()) != '\n'; ) {
                if (b == -1) {
                    throw new EOFException("closed mid-line: " + line);
                }
                if (b != '\r') {
                    line.write(b);
                }
            }
            return line.toString(StandardCharsets.ISO_8859_1);
        }
    }

    // ---- the upstream: Jetty 12, core handlers (no servlets)

    /** What the upstream received for one request. {@code headers}: each field as name (lowercase), value. */
    record Seen(String method, String target, String version, String scheme, String authority, List<String[]> fields,
                long bodyBytes, String bodySha256) {
        String header(String name) {
            List<String> values = headers(name);
            return values.isEmpty() ? null : values.get(0);
        }

        List<String> headers(String name) {
            return fields.stream().filter(f -> f[0].equals(name)).map(f -> f[1]).toList();
        }

        @Override
        public String toString() {
            StringBuilder s = new StringBuilder(method + " " + target + " " + version + " :scheme " + scheme + " :authority " + authority);
            fields.forEach(f -> s.append(" | ").append(f[0]).append(": ").append(f[1]));
            return s.append(" | body ").append(bodyBytes).toString();
        }
    }

    /**
     * An embedded Jetty 12 on 127.0.0.1: h2c with prior knowledge only (no HTTP/1.1 on that
     * connector, so a request that is not HTTP/2 fails there), h2 or http/1.1 over TLS, or plain
     * HTTP/1.1 (for the direct check of the HTTP/1.1 clients). Its endpoints:
     * <pre>
     *   GET /headers...   answers what it received: "METHOD TARGET VERSION", ":scheme: ", ":authority: ", then "name: value" lines
     *   POST /echo...     streams the request body back as it reads it (any size), remembering its digest
     *   /trailers         TRAILERS_BODY pattern bytes, then trailers x-checksum (their sha256) and x-second
     *   /big?n=N          N pattern bytes with Content-Length (none for HEAD)
     *   /status/NNN       answers NNN ("status NNN\n" unless 204 or 304)
     * </pre>
     * Every response carries "x-upstream: NAME". Every request is remembered ({@link #seen}), and
     * every TCP connection it accepted is counted.
     *
     * <p>TLS: ALPN is answered by the JDK's SSLEngine selector set on each engine (what Jetty's
     * jetty-alpn-java-server does for ALPNServerConnectionFactory, an artifact not in the local
     * repository): the one protocol the connector speaks if the client offers it, else the
     * handshake fails (no_application_protocol), as Jetty's ALPN does when nothing matches.
     */
    static final class JettyUpstream implements AutoCloseable {
        static final int TRAILERS_BODY = 10_000;
        private final String name;
        private final Server server = new Server();
        private final Map<String, Seen> seen = new ConcurrentHashMap<>();
        private final Set<String> opened = ConcurrentHashMap.newKeySet();
        /** Each Jetty connection open now, by the address of its TCP peer (over TLS two connections share one). */
        private final Map<Connection, String> open = new ConcurrentHashMap<>();
        private ServerConnector connector;
        private String scheme = "http";

        private JettyUpstream(String name) {
            this.name = name;
        }

        /** h2c with prior knowledge on {@code port} (0: any free one). */
        static JettyUpstream h2c(String name, int port) throws Exception {
            JettyUpstream upstream = new JettyUpstream(name);
            upstream.start(port, new HTTP2CServerConnectionFactory(new HttpConfiguration()));
            return upstream;
        }

        /** HTTP/1.1 only, plain. */
        static JettyUpstream http11(String name) throws Exception {
            JettyUpstream upstream = new JettyUpstream(name);
            upstream.start(0, new HttpConnectionFactory(new HttpConfiguration()));
            return upstream;
        }

        /** TLS presenting {@code context}'s certificate; ALPN selects {@code protocol} ("h2" or "http/1.1") or fails. */
        static JettyUpstream tls(String name, SSLContext context, String protocol) throws Exception {
            JettyUpstream upstream = new JettyUpstream(name);
            upstream.scheme = "https";
            HttpConfiguration config = new HttpConfiguration();
            SecureRequestCustomizer secure = new SecureRequestCustomizer();
            secure.setSniHostCheck(false); // Kodiak connects to 127.0.0.1: an address sends no SNI
            config.addCustomizer(secure);
            SslContextFactory.Server ssl = new SslContextFactory.Server() {
                @Override
                public void customize(SSLEngine engine) {
                    super.customize(engine);
                    engine.setHandshakeApplicationProtocolSelector((e, offered) -> offered.contains(protocol) ? protocol : null);
                }
            };
            ssl.setSslContext(context);
            ConnectionFactory application = protocol.equals("h2")
                    ? new HTTP2ServerConnectionFactory(config) : new HttpConnectionFactory(config);
            upstream.start(0, new SslConnectionFactory(ssl, application.getProtocol()), application);
            return upstream;
        }

        private void start(int port, ConnectionFactory... factories) throws Exception {
            connector = new ServerConnector(server, factories);
            connector.setHost("127.0.0.1");
            connector.setPort(port);
            connector.addEventListener(new Connection.Listener() {
                @Override
                public void onOpened(Connection connection) {
                    String remote = String.valueOf(connection.getEndPoint().getRemoteSocketAddress());
                    opened.add(remote);
                    open.put(connection, remote);
                }

                @Override
                public void onClosed(Connection connection) {
                    open.remove(connection);
                }
            });
            server.addConnector(connector);
            server.setHandler(new Endpoints());
            // Graceful: stop() sends GOAWAY on each h2 connection and waits (up to this) for their streams.
            server.setStopTimeout(5_000);
            server.start();
        }

        int port() {
            return connector.getLocalPort();
        }

        /** Its URL without a path, as a server of a group is given. */
        String url() {
            return scheme + "://127.0.0.1:" + port();
        }

        /** What the upstream received for {@code target} (path and query); fails when it received none. */
        Seen seen(String target) {
            Seen request = seen.get(target);
            assertNotNull(request, "the upstream received no " + target + "; it did receive " + seen.keySet());
            return request;
        }

        int requests() {
            return seen.size();
        }

        Set<String> seenTargets() {
            return seen.keySet();
        }

        /** TCP connections accepted since the start. */
        int connectionsOpened() {
            return opened.size();
        }

        /** TCP connections open now. */
        int connectionsOpenNow() {
            return Set.copyOf(open.values()).size();
        }

        /** Jetty's graceful stop; returns once every connection is closed. */
        void stop() {
            try {
                server.stop();
                Await.await(open::isEmpty, () -> "the upstream's connections to close: " + open.values());
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void close() {
            try {
                server.stop();
            } catch (Exception ignored) {
                // stopping anyway
            }
        }

        private final class Endpoints extends Handler.Abstract {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                try {
                    String path = request.getHttpURI().getPath();
                    String query = request.getHttpURI().getQuery();
                    String target = path + (query == null ? "" : "?" + query);
                    List<String[]> fields = new ArrayList<>();
                    for (HttpField field : request.getHeaders()) {
                        fields.add(new String[] {field.getName().toLowerCase(Locale.ROOT), field.getValue()});
                    }
                    String version = request.getConnectionMetaData().getHttpVersion().asString();
                    String authority = request.getHttpURI().getAuthority();
                    String requestScheme = request.getHttpURI().getScheme();
                    response.getHeaders().put("x-upstream", name);
                    if (path.startsWith("/echo")) {
                        echo(request, response, new Seen(request.getMethod(), target, version, requestScheme, authority, fields, 0, null));
                    } else {
                        seen.put(target, new Seen(request.getMethod(), target, version, requestScheme, authority, fields, 0,
                                Patterns.sha256Of(0)));
                        if (path.startsWith("/headers")) {
                            StringBuilder text = new StringBuilder(request.getMethod() + " " + target + " " + version + "\n"
                                    + ":scheme: " + requestScheme + "\n:authority: " + authority + "\n");
                            fields.forEach(f -> text.append(f[0]).append(": ").append(f[1]).append('\n'));
                            byte[] body = text.toString().getBytes(StandardCharsets.UTF_8);
                            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain");
                            response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
                            writeAll(response, body);
                        } else if (path.equals("/trailers")) {
                            response.setTrailersSupplier(() -> HttpFields.build()
                                    .put("x-checksum", sha256Of(TRAILERS_BODY)).put("x-second", "2"));
                            writeAll(response, Patterns.bytes(TRAILERS_BODY));
                        } else if (path.equals("/big")) {
                            long n = Long.parseLong(query.substring("n=".length()));
                            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/octet-stream");
                            response.getHeaders().put(HttpHeader.CONTENT_LENGTH, n);
                            if (!HttpMethod.HEAD.is(request.getMethod())) {
                                try (OutputStream out = Content.Sink.asOutputStream(response); InputStream in = Patterns.stream(n)) {
                                    in.transferTo(out);
                                }
                            }
                        } else if (path.startsWith("/status/")) {
                            int status = Integer.parseInt(path.substring("/status/".length()));
                            response.setStatus(status);
                            if (status != 204 && status != 304) {
                                writeAll(response, ("status " + status + "\n").getBytes(StandardCharsets.US_ASCII));
                            }
                        } else {
                            response.setStatus(404);
                            writeAll(response, "no such endpoint\n".getBytes(StandardCharsets.US_ASCII));
                        }
                    }
                    callback.succeeded();
                } catch (Throwable failure) {
                    callback.failed(failure);
                }
                return true;
            }

            /** Copies the body back as it arrives; the request is remembered before the last write ends the response. */
            private void echo(Request request, Response response, Seen head) throws Exception {
                String type = request.getHeaders().get(HttpHeader.CONTENT_TYPE);
                if (type != null) {
                    response.getHeaders().put(HttpHeader.CONTENT_TYPE, type);
                }
                MessageDigest sha = MessageDigest.getInstance("SHA-256");
                long total = 0;
                OutputStream out = Content.Sink.asOutputStream(response);
                try (InputStream in = Request.asInputStream(request)) {
                    byte[] buffer = new byte[64 * 1024];
                    for (int n; (n = in.read(buffer)) != -1; ) {
                        sha.update(buffer, 0, n);
                        total += n;
                        out.write(buffer, 0, n);
                    }
                }
                seen.put(head.target(), new Seen(head.method(), head.target(), head.version(), head.scheme(), head.authority(),
                        head.fields(), total, Patterns.hex(sha.digest())));
                out.close();
            }

            private static void writeAll(Response response, byte[] body) throws IOException {
                try (OutputStream out = Content.Sink.asOutputStream(response)) {
                    out.write(body);
                }
            }

            private static String sha256Of(long length) {
                try {
                    return Patterns.sha256Of(length);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
        }
    }
}
