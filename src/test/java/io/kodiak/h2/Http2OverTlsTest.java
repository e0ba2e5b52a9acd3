package io.kodiak.h2;

import io.kodiak.support.Patterns;
import io.kodiak.support.ProxyHarness;
import io.kodiak.support.TestTls;
import io.kodiak.support.TestUpstream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** h2 over TLS: ALPN offers h2 before http/1.1, and the JDK's HttpClient, a real h2 client, takes it. */
class Http2OverTlsTest {
    private static TestUpstream upstream;

    @BeforeAll
    static void start() throws Exception {
        upstream = TestUpstream.start();
    }

    @AfterAll
    static void stop() {
        upstream.close();
    }

    private static ProxyHarness proxy(String extra) throws Exception {
        return ProxyHarness.start(TestTls.tlsListener() + extra + """
                proxy.routes = [
                  { prefix = "/h/", upstream = "%s" }
                  { prefix = "/echo", upstream = "%s" }
                ]
                """.formatted(upstream.url("/headers/"), upstream.url("/echo")));
    }

    private static HttpClient client() {
        return HttpClient.newBuilder().sslContext(TestTls.trustingClientContext()).version(HttpClient.Version.HTTP_2).build();
    }

    @Test
    void alpnPicksH2AndRequestsGoThrough() throws Exception {
        try (ProxyHarness proxy = proxy("")) {
            HttpClient client = client();
            URI base = URI.create("https://127.0.0.1:" + proxy.port());
            HttpResponse<String> get = client.send(HttpRequest.newBuilder(base.resolve("/h/over-tls")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(HttpClient.Version.HTTP_2, get.version());
            assertEquals(200, get.statusCode());
            assertTrue(get.body().startsWith("GET /headers/over-tls\n"), get.body());
            assertTrue(get.body().contains("\nx-forwarded-proto: https\n"), get.body());
            byte[] body = Patterns.bytes(2_000_000);
            List<CompletableFuture<HttpResponse<byte[]>>> posts = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                posts.add(client.sendAsync(HttpRequest.newBuilder(base.resolve("/echo"))
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofByteArray()));
            }
            for (CompletableFuture<HttpResponse<byte[]>> post : posts) {
                HttpResponse<byte[]> response = post.get();
                assertEquals(HttpClient.Version.HTTP_2, response.version());
                assertEquals(200, response.statusCode());
                assertArrayEquals(body, response.body());
            }
        }
    }

    @Test
    void withHttp2OffAlpnOffersHttp11Only() throws Exception {
        try (ProxyHarness proxy = proxy("proxy.listener.http2 = false\n")) {
            HttpResponse<String> get = client().send(HttpRequest.newBuilder(
                    URI.create("https://127.0.0.1:" + proxy.port() + "/h/plain")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(HttpClient.Version.HTTP_1_1, get.version());
            assertEquals(200, get.statusCode());
        }
    }
}
