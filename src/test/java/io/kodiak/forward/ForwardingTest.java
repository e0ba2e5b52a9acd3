package io.kodiak.forward;

import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import io.kodiak.support.TestUpstream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Requests and responses pass through with the right method, target, headers and forwarding headers. */
class ForwardingTest {
    private static TestUpstream upstream;
    private static ProxyHarness proxy;
    private static final HttpClient HTTP = io.kodiak.support.TestTls.httpClient().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeAll
    static void start() throws Exception {
        upstream = TestUpstream.start();
        proxy = ProxyHarness.start("""
                proxy.routes = [
                  { prefix = "/", upstream = "%s" }
                  { prefix = "/api/", upstream = "%s" }
                  { prefix = "/keep/", upstream = "%s", preserve-host = true }
                ]
                """.formatted(upstream.url("/headers/root/"), upstream.url("/headers/v2/"), upstream.url("/headers/k/")));
    }

    @AfterAll
    static void stop() {
        proxy.close();
        upstream.close();
    }

    private static String firstLine(String body) {
        return body.substring(0, body.indexOf('\n'));
    }

    private static HttpResponse<String> send(String method, String path, HttpRequest.BodyPublisher body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(proxy.uri(path)).method(method, body).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "PROPFIND", "MKCOL", "X-CUSTOM"})
    void everyMethodReachesTheUpstreamUnchanged(String method) throws Exception {
        HttpResponse<String> response = send(method, "/m", HttpRequest.BodyPublishers.ofString("payload"));
        assertEquals(200, response.statusCode());
        assertEquals(method + " /headers/root/m", firstLine(response.body()));
    }

    @Test
    void headIsAnsweredWithoutBodyButWithTheUpstreamsLength() throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            raw.send("HEAD /x HTTP/1.1\r\nHost: a\r\n\r\n");
            RawHttp.Response head = raw.read(true);
            assertEquals(200, head.status());
            assertTrue(Integer.parseInt(head.header("content-length")) > 0, head.headers.toString());
            // The connection is still usable: no stray body bytes were sent after the HEAD response.
            raw.send("GET /after-head HTTP/1.1\r\nHost: a\r\n\r\n");
            assertEquals("GET /headers/root/after-head", firstLine(raw.read().bodyText()));
        }
    }

    @Test
    void longestPrefixWinsAndReplacesThePrefixKeepingTheQuery() throws Exception {
        assertEquals("GET /headers/v2/users/7?a=1&b=%20x",
                firstLine(send("GET", "/api/users/7?a=1&b=%20x", HttpRequest.BodyPublishers.noBody()).body()));
        assertEquals("GET /headers/root/apix?q", firstLine(send("GET", "/apix?q", HttpRequest.BodyPublishers.noBody()).body()));
    }

    @Test
    void noMatchingRouteIs404FromKodiak() throws Exception {
        try (ProxyHarness narrow = ProxyHarness.start("proxy.routes = [ { prefix = \"/only/\", upstream = \""
                + upstream.url("/headers") + "\" } ]")) {
            HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(narrow.uri("/other")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(404, response.statusCode());
            assertTrue(response.body().startsWith("404 no route"), response.body());
            assertEquals(0, upstream.holds());
        }
    }

    @Test
    void endToEndHeadersPassBothWaysAndHopByHopHeadersStop() throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            raw.send("GET /h HTTP/1.1\r\nHost: client.example:81\r\nX-Custom: one\r\nX-Custom: two\r\n"
                    + "Connection: keep-alive, X-Secret\r\nX-Secret: hide\r\nKeep-Alive: timeout=9\r\n"
                    + "Proxy-Connection: keep-alive\r\nTE: trailers\r\nTrailer: x\r\nUpgrade: websocket\r\n"
                    + "Accept: text/plain\r\n\r\n");
            RawHttp.Response response = raw.read();
            String seen = response.bodyText();
            assertTrue(seen.contains("x-custom: one\nx-custom: two\n"), seen);
            assertTrue(seen.contains("accept: text/plain\n"), seen);
            for (String hop : List.of("x-secret:", "keep-alive:", "proxy-connection:", "te:", "trailer:", "upgrade:")) {
                assertFalse(seen.contains("\n" + hop), hop + " leaked upstream: " + seen);
            }
            assertEquals("kept", response.header("x-end-to-end"));
            assertEquals(2, response.headers.stream().filter(h -> h[0].equals("x-multi")).count());
            for (String hop : List.of("x-drop-me", "keep-alive", "proxy-connection", "trailer")) {
                assertNull(response.header(hop), hop + " leaked to the client: " + response.headers);
            }
            assertTrue(response.header("connection") == null || !response.header("connection").contains("x-drop-me"));
        }
    }

    @Test
    void forwardingHeadersAreAddedAndForwardedForIsAppended() throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            raw.send("GET /f HTTP/1.1\r\nHost: front.example\r\nX-Forwarded-For: 10.1.2.3\r\n\r\n");
            String seen = raw.read().bodyText();
            assertTrue(seen.contains("x-forwarded-for: 10.1.2.3, 127.0.0.1\n"), seen);
            assertTrue(seen.contains("x-forwarded-proto: " + io.kodiak.support.TestTls.scheme() + "\n"), seen);
            assertTrue(seen.contains("x-forwarded-host: front.example\n"), seen);
        }
    }

    @Test
    void hostIsTheUpstreamsUnlessTheRoutePreservesIt() throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            raw.send("GET /a HTTP/1.1\r\nHost: front.example\r\n\r\n");
            assertTrue(raw.read().bodyText().contains("host: 127.0.0.1:" + upstream.port() + "\n"));
            raw.send("GET /keep/b HTTP/1.1\r\nHost: front.example\r\n\r\n");
            String seen = raw.read().bodyText();
            assertTrue(seen.startsWith("GET /headers/k/b\n"), seen);
            assertTrue(seen.contains("host: front.example\n"), seen);
        }
    }

    @Test
    void statusCodesWithoutBodyPassThrough() throws Exception {
        try (ProxyHarness statuses = ProxyHarness.forUpstream(upstream.url("/status/"), "")) {
            for (int code : new int[]{204, 304, 404, 418, 503}) {
                try (RawHttp raw = new RawHttp(statuses.port())) {
                    raw.send("GET /" + code + " HTTP/1.1\r\nHost: a\r\n\r\n");
                    RawHttp.Response response = raw.read();
                    assertEquals(code, response.status());
                    assertEquals("\"v1\"", response.header("etag"));
                    if (code == 204 || code == 304) {
                        assertNull(response.header("transfer-encoding"));
                        // Nothing follows the bodiless response: the next request on the connection works.
                        raw.send("GET /200 HTTP/1.1\r\nHost: a\r\n\r\n");
                        assertEquals(200, raw.read().status());
                    }
                }
            }
        }
    }
}
