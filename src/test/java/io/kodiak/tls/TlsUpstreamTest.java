package io.kodiak.tls;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.Principal;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** https:// upstreams: the JDK's HTTPS server behind Kodiak, with certificates made in the test. */
class TlsUpstreamTest {
    @TempDir
    Path dir;
    private TestCertificates certs;
    private HttpsServer server;
    private ProxyHarness proxy;
    private final AtomicInteger served = new AtomicInteger();
    private final HttpClient client = HttpClient.newHttpClient();
    /** Sockets a test opened, closed after it. */
    private final java.util.List<AutoCloseable> closeAfter = new java.util.ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        certs = new TestCertificates(dir);
    }

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable opened : closeAfter) {
            opened.close();
        }
        if (proxy != null) {
            proxy.close();
        }
        if (server != null) {
            server.stop(0);
        }
    }

    /** An HTTPS server presenting {@code identity}, answering with the client certificate's subject if any. */
    private void serve(TestCertificates.Issued identity, boolean needClientAuth) throws Exception {
        SSLContext context = certs.serverContext(identity);
        server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        server.setHttpsConfigurator(new HttpsConfigurator(context) {
            @Override
            public void configure(HttpsParameters params) {
                SSLParameters parameters = context.getDefaultSSLParameters();
                parameters.setNeedClientAuth(needClientAuth);
                params.setSSLParameters(parameters);
            }
        });
        server.setExecutor(Executors.newFixedThreadPool(4));
        server.createContext("/", exchange -> {
            served.incrementAndGet();
            exchange.getRequestBody().readAllBytes();
            String who = "-";
            try {
                Principal peer = ((HttpsExchange) exchange).getSSLSession().getPeerPrincipal();
                who = peer.getName();
            } catch (IOException none) {
                // no client certificate
            }
            byte[] body = ("secure " + exchange.getRequestURI() + " client=" + who).getBytes(StandardCharsets.US_ASCII);
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
    }

    private void proxy(String tls) throws IOException {
        proxy = ProxyHarness.start("proxy.routes = [ { prefix = \"/\", upstream = \"https://localhost:"
                + server.getAddress().getPort() + "/\" } ]\nproxy.upstream.tls { " + tls + " }\n");
    }

    private HttpResponse<String> get(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(proxy.uri(path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private String trustCa() {
        return "trust = \"" + certs.ca().certificateFile() + "\"";
    }

    @Test
    void aVerifiedUpstreamIsServedAndItsConnectionReused() throws Exception {
        serve(certs.leaf("server", Duration.ofDays(30), "localhost"), false);
        proxy(trustCa());
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> response = get("/a" + i);
            assertEquals(200, response.statusCode(), response.body());
            assertEquals("secure /a" + i + " client=-", response.body());
        }
        assertEquals(1, proxy.kodiak().upstreams().pools().get(0).openConnections(), "one pooled TLS connection");
    }

    @Test
    void aCertificateForAnotherNameIsRefusedWith502NamingTheCause() throws Exception {
        serve(certs.leaf("server", Duration.ofDays(30), "other.test"), false);
        proxy(trustCa());
        HttpResponse<String> response = get("/x");
        assertEquals(502, response.statusCode());
        assertTrue(response.body().contains("TLS handshake"), response.body());
        assertEquals(0, served.get(), "nothing reached the server");
    }

    @Test
    void hostnameVerificationCanBeTurnedOffButTrustStillApplies() throws Exception {
        serve(certs.leaf("server", Duration.ofDays(30), "other.test"), false);
        proxy(trustCa() + ", verify-hostname = false");
        assertEquals(200, get("/x").statusCode());
    }

    @Test
    void anUntrustedCertificateIsRefused() throws Exception {
        serve(certs.leaf("server", Duration.ofDays(30), "localhost"), false);
        proxy("trust = system");
        HttpResponse<String> response = get("/x");
        assertEquals(502, response.statusCode());
        assertTrue(response.body().contains("TLS handshake"), response.body());
    }

    @Test
    void mutualTlsPresentsTheClientCertificate() throws Exception {
        serve(certs.leaf("server", Duration.ofDays(30), "localhost"), true);
        TestCertificates.Issued identity = certs.leaf("kodiak-client", Duration.ofDays(30), "kodiak.client");
        proxy(trustCa() + ", certificate = \"" + identity.certificateFile() + "\", key = \"" + identity.keyFile() + "\"");
        HttpResponse<String> response = get("/m");
        assertEquals(200, response.statusCode(), response.body());
        assertEquals("secure /m client=CN=kodiak.client", response.body());
    }

    @Test
    void withoutTheClientCertificateAServerThatNeedsOneIsNotServed() throws Exception {
        serve(certs.leaf("server", Duration.ofDays(30), "localhost"), true);
        proxy(trustCa());
        assertEquals(502, get("/m").statusCode());
        assertEquals(0, served.get());
    }

    @Test
    void aGroupsOwnTlsOverridesProxyUpstreamTlsForItsServersOnly() throws Exception {
        serve(certs.leaf("server", Duration.ofDays(30), "localhost"), true);
        TestCertificates.Issued identity = certs.leaf("group-client", Duration.ofDays(30), "group.client");
        String url = "https://localhost:" + server.getAddress().getPort();
        // The group names only its client certificate; trust comes from proxy.upstream.tls.
        proxy = ProxyHarness.start("proxy.upstream.tls { " + trustCa() + " }\n"
                + "proxy.upstreams.secured { servers = [\"" + url + "\"], tls { certificate = \"" + identity.certificateFile()
                + "\", key = \"" + identity.keyFile() + "\" } }\n"
                + "proxy.routes = [ { prefix = \"/g/\", upstream = \"https://secured/\" },"
                + " { prefix = \"/plain/\", upstream = \"" + url + "/\" } ]\n");
        HttpResponse<String> viaGroup = get("/g/m");
        assertEquals(200, viaGroup.statusCode(), viaGroup.body());
        assertEquals("secure /m client=CN=group.client", viaGroup.body());
        // The route to the same server outside the group has no client certificate: refused by the server.
        assertEquals(502, get("/plain/m").statusCode());
        assertEquals(1, served.get());
    }

    /**
     * An upstream that answers, then sends its close_notify and one more TLS record on the pooled
     * connection: the engine, closed inbound, consumes nothing, and Grizzly handed the record back
     * to it for good on Kodiak's selector thread. The connection is closed instead, and every
     * later request is served (on new connections, each ended the same way).
     */
    @Test
    void anUpstreamSendingARecordAfterItsCloseNotifyFreezesNothing() throws Exception {
        SSLContext context = certs.serverContext(certs.leaf("hostile", Duration.ofDays(30), "localhost"));
        try (java.net.ServerSocket listening = new java.net.ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                while (!listening.isClosed()) {
                    try {
                        java.net.Socket plain = listening.accept();
                        Thread connection = new Thread(() -> answerThenCloseNotifyThenARecord(context, plain));
                        connection.setDaemon(true);
                        connection.start();
                    } catch (IOException closed) {
                        return;
                    }
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            proxy = ProxyHarness.start("proxy.routes = [ { prefix = \"/\", upstream = \"https://localhost:"
                    + listening.getLocalPort() + "/\" } ]\nproxy.upstream.tls { " + trustCa() + " }\n");
            HttpClient bounded = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            for (int i = 0; i < 8; i++) {
                HttpResponse<String> response = bounded.send(HttpRequest.newBuilder(proxy.uri("/r" + i))
                        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(200, response.statusCode(), response.body());
                assertEquals("ok", response.body());
            }
        }
    }

    /** How the upstream of {@link #closeDelimitedBody} ends its connection after its body. */
    private enum Ending {
        /** close_notify, then the end of the TCP stream: the valid closure of RFC 9112 §9.8. */
        CLOSE_NOTIFY,
        /** The end of the TCP stream alone, as after a crash or from an attacker who cut the connection. */
        END_OF_STREAM_ONLY,
        /** A record that fails to decrypt, then the end of the stream: the engine's failure closes its inbound side too. */
        CORRUPT_RECORD
    }

    /**
     * RFC 9112 §9.8: over TLS, a body delimited by the connection's close is whole only when the
     * upstream's close_notify came before the end of the stream. Without it, the body reaches an
     * HTTP/1.1 client without the last chunk, which tells the client it was cut.
     */
    @Test
    void aCloseDelimitedBodyEndedWithoutCloseNotifyIsNotEndedAsWhole() throws Exception {
        assertThrows(IOException.class, closeDelimitedBody(Ending.END_OF_STREAM_ONLY)::readAllBytes,
                "no last chunk: the connection closed");
    }

    /** The positive control of the one above: the same upstream, with its close_notify. */
    @Test
    void aCloseDelimitedBodyEndedByCloseNotifyEndsWithTheLastChunk() throws Exception {
        assertEquals(" and the rest", new String(closeDelimitedBody(Ending.CLOSE_NOTIFY).readAllBytes(),
                StandardCharsets.US_ASCII));
    }

    @Test
    void aRecordThatFailsToDecryptIsNoEndOfACloseDelimitedBody() throws Exception {
        assertThrows(IOException.class, closeDelimitedBody(Ending.CORRUPT_RECORD)::readAllBytes,
                "no last chunk: the connection closed");
    }

    /**
     * An HTTP/1.1 client's request, answered by an upstream with a close-delimited body ("hello and
     * the rest", the first part read through Kodiak before the rest is sent) and then {@code ending}.
     * Returns the client's view of the body after "hello", as Kodiak re-framed it (chunked).
     */
    private InputStream closeDelimitedBody(Ending ending) throws Exception {
        SSLContext context = certs.serverContext(certs.leaf("server", Duration.ofDays(30), "localhost"));
        // Plain, with TLS put over the accepted socket: closing the plain one sends no close_notify.
        java.net.ServerSocket listening = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        closeAfter.add(listening);
        proxy = ProxyHarness.start("proxy.routes = [ { prefix = \"/\", upstream = \"https://localhost:"
                + listening.getLocalPort() + "/\" } ]\nproxy.upstream.tls { " + trustCa() + " }\n");
        RawHttp raw = new RawHttp(proxy.port());
        closeAfter.add(raw);
        raw.send("GET /until-close HTTP/1.1\r\nHost: a\r\n\r\n");
        java.net.Socket plain = listening.accept();
        closeAfter.add(plain);
        javax.net.ssl.SSLSocket tls = (javax.net.ssl.SSLSocket) context.getSocketFactory()
                .createSocket(plain, null, plain.getPort(), false);
        tls.setUseClientMode(false);
        assertTrue(TlsTalk.readHead(tls.getInputStream()).endsWith("\r\n\r\n"));
        OutputStream out = tls.getOutputStream();
        out.write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nhello"
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
        RawHttp.Response head = raw.readHead();
        assertEquals(200, head.status());
        assertEquals("chunked", head.header("transfer-encoding"));
        InputStream body = raw.bodyStream(head);
        byte[] first = new byte[5];
        for (int got = 0; got < first.length; ) {
            // Not readNBytes: it would read on for a byte more, and wait for the rest.
            got += body.read(first, got, first.length - got);
        }
        assertEquals("hello", new String(first, StandardCharsets.US_ASCII));
        out.write(" and the rest".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        switch (ending) {
            case CLOSE_NOTIFY -> tls.close();   // close_notify only: the TLS layer was put over plain without autoClose
            case END_OF_STREAM_ONLY -> { }
            case CORRUPT_RECORD -> {
                // An application-data record whose bytes cannot be an AEAD ciphertext of this connection.
                plain.getOutputStream().write(new byte[] {0x17, 0x03, 0x03, 0x00, 0x20, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
                        11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32});
                plain.getOutputStream().flush();
            }
        }
        // The end of the TCP stream, without a close_notify of its own.
        plain.shutdownOutput();
        return body;
    }

    /** The hostile upstream's side of one connection: one answer, close_notify, a record, then silence. */
    private static void answerThenCloseNotifyThenARecord(SSLContext context, java.net.Socket plain) {
        try (plain; javax.net.ssl.SSLSocket tls = (javax.net.ssl.SSLSocket) context.getSocketFactory()
                .createSocket(plain, null, plain.getPort(), false)) {
            tls.setUseClientMode(false);
            if (!TlsTalk.readHead(tls.getInputStream()).endsWith("\r\n\r\n")) {
                return;
            }
            OutputStream out = tls.getOutputStream();
            out.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            tls.shutdownOutput();   // TLS 1.3 close_notify
            plain.getOutputStream().write(new byte[] {0x17, 0x03, 0x03, 0x00, 0x05, 1, 2, 3, 4, 5});
            plain.getOutputStream().flush();
            plain.setSoTimeout(10_000);
            while (plain.getInputStream().read() >= 0) {
                // until Kodiak closes (or the timeout)
            }
        } catch (IOException gone) {
            // Kodiak closed the connection
        }
    }
}
