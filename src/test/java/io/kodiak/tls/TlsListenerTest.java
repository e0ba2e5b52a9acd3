package io.kodiak.tls;

import com.typesafe.config.ConfigFactory;
import io.kodiak.config.ConfigException;
import io.kodiak.config.ConfigLoader;
import io.kodiak.support.Await;
import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RecordingUpstream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import java.io.IOException;
import java.net.InetAddress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** A TLS listener with certificates made in the test, spoken to by the JDK's TLS clients. */
class TlsListenerTest {
    @TempDir
    Path dir;
    private TestCertificates certs;
    private TestCertificates.Issued main;
    private TestCertificates.Issued api;
    private TestCertificates.Issued org;
    private RecordingUpstream upstream;
    private ProxyHarness proxy;

    @BeforeEach
    void setUp() throws Exception {
        certs = new TestCertificates(dir);
        main = certs.leaf("main", Duration.ofDays(90), "localhost", "proxy.test");
        api = certs.rsaLeaf("api", Duration.ofDays(90), "api.example.com");
        org = certs.leaf("org", Duration.ofDays(90), "*.example.org");
        upstream = new RecordingUpstream(RecordingUpstream.ECHO);
    }

    @AfterEach
    void tearDown() throws IOException {
        if (proxy != null) {
            proxy.close();
        }
        upstream.close();
    }

    private String tls(String extra) {
        return "proxy.listener.tls { certificate = \"" + main.certificateFile() + "\", key = \"" + main.keyFile() + "\"\n"
                + " sni = [ { names = [\"api.example.com\"], certificate = \"" + api.certificateFile() + "\", key = \""
                + api.keyFile() + "\" }, { names = [\"*.example.org\"], certificate = \"" + org.certificateFile()
                + "\", key = \"" + org.keyFile() + "\" } ]\n" + extra + "}\n";
    }

    private void start(String extra) throws IOException {
        proxy = ProxyHarness.forUpstream(upstream.url("/"), tls(extra));
    }

    private SSLSocket connect(SSLContext context, String sni, String... protocols) throws IOException {
        SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket(InetAddress.getLoopbackAddress(), proxy.port());
        socket.setSoTimeout(5000);
        SSLParameters parameters = socket.getSSLParameters();
        if (sni != null) {
            parameters.setServerNames(List.of(new SNIHostName(sni)));
        }
        if (protocols.length > 0) {
            parameters.setProtocols(protocols);
        }
        parameters.setApplicationProtocols(new String[] {"h2", "http/1.1"});
        socket.setSSLParameters(parameters);
        socket.startHandshake();
        return socket;
    }

    private static String exchange(SSLSocket socket, String request) throws IOException {
        return TlsTalk.exchange(socket, request);
    }

    /** POSTs {@code body} to {@code path} with the JDK's HTTP client over HTTPS, trusting the test CA. */
    private HttpResponse<String> post(String path, String body) throws Exception {
        HttpClient client = HttpClient.newBuilder().sslContext(certs.clientContext(null)).build();
        return client.send(HttpRequest.newBuilder(java.net.URI.create("https://localhost:" + proxy.port() + path))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void httpsRequestsAreForwardedWithXForwardedProtoHttps() throws Exception {
        start("");
        HttpResponse<String> response = post("/hello", "over tls");
        assertEquals(200, response.statusCode());
        assertEquals("over tls", response.body());
        assertEquals("https", upstream.received().get(0).header("X-Forwarded-Proto"));
        assertEquals(List.of(), upstream.violations());
    }

    @Test
    void sniPicksTheCertificateAndAlpnPicksH2ThenHttp11() throws Exception {
        start("");
        SSLContext context = certs.clientContext(null);
        try (SSLSocket socket = connect(context, "api.example.com")) {
            assertEquals(api.certificate(), socket.getSession().getPeerCertificates()[0]);
            // The client offers h2 and http/1.1: h2 (listener.http2 is on by default). Kodiak
            // tells the protocols apart by the HTTP/2 preface, so HTTP/1.1 bytes are still served.
            assertEquals("h2", socket.getApplicationProtocol());
            String response = exchange(socket, "GET /x HTTP/1.1\r\nHost: api.example.com\r\nConnection: close\r\n\r\n");
            assertTrue(response.startsWith("HTTP/1.1 200"), response);
        }
        // A context each: a client would otherwise resume its last session instead of a new handshake.
        try (SSLSocket socket = connect(certs.clientContext(null), "shop.example.org")) {
            assertEquals(org.certificate(), socket.getSession().getPeerCertificates()[0], "the wildcard entry");
        }
        try (SSLSocket socket = connect(certs.clientContext(null), "unknown.test")) {
            assertEquals(main.certificate(), socket.getSession().getPeerCertificates()[0], "the default pair");
        }
        try (SSLSocket socket = connect(certs.clientContext(null), null)) {
            assertEquals(main.certificate(), (X509Certificate) socket.getSession().getPeerCertificates()[0]);
        }
    }

    @Test
    void aHostServedUnderAnotherCertificateThanTheConnectionsIsMisdirected() throws Exception {
        proxy = ProxyHarness.start("proxy.routes = [ { host = \"api.example.com\", prefix = \"/\", upstream = \""
                + upstream.url("/api/") + "\" }, { host = \"*.example.org\", prefix = \"/\", upstream = \""
                + upstream.url("/org/") + "\" }, { prefix = \"/\", upstream = \"" + upstream.url("/any/") + "\" } ]\n" + tls(""));
        try (SSLSocket socket = connect(certs.clientContext(null), "api.example.com")) {
            String response = exchange(socket, "GET /x HTTP/1.1\r\nHost: shop.example.org\r\nConnection: close\r\n\r\n");
            assertTrue(response.startsWith("HTTP/1.1 421 "), response);
        }
        try (SSLSocket socket = connect(certs.clientContext(null), "api.example.com")) {
            String response = exchange(socket, "GET /x HTTP/1.1\r\nHost: API.example.com:443\r\nConnection: close\r\n\r\n");
            assertTrue(response.startsWith("HTTP/1.1 200"), response);
        }
        // One certificate for both names (the wildcard's): served.
        try (SSLSocket socket = connect(certs.clientContext(null), "a.example.org")) {
            String response = exchange(socket, "GET /x HTTP/1.1\r\nHost: b.example.org\r\nConnection: close\r\n\r\n");
            assertTrue(response.startsWith("HTTP/1.1 200"), response);
        }
        // Neither name has a certificate of its own: both get the default pair, so the host is served.
        try (SSLSocket socket = connect(certs.clientContext(null), "proxy.test")) {
            String response = exchange(socket, "GET /x HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n");
            assertTrue(response.startsWith("HTTP/1.1 200"), response);
        }
        // An HTTP/1.0 request without Host names no host: the host-less routes serve it.
        try (SSLSocket socket = connect(certs.clientContext(null), "api.example.com")) {
            String response = exchange(socket, "GET /y HTTP/1.0\r\n\r\n");
            assertTrue(response.startsWith("HTTP/1.1 200"), response);
        }
        List<String> targets = upstream.received().stream().map(RecordingUpstream.Received::target).toList();
        assertEquals(List.of("/api/x", "/org/x", "/any/x", "/any/y"), targets, "nothing forwarded for the misdirected request");
    }

    @Test
    void protocolsOlderThanTls12AreRefused() throws Exception {
        start("");
        SSLContext context = certs.clientContext(null);
        // The JDK's own client will not even offer TLS 1.1 (jdk.tls.disabledAlgorithms), so the
        // server is offered one by hand: a TLS 1.1 ClientHello, as an old client sends it.
        try (java.net.Socket raw = new java.net.Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
            raw.setSoTimeout(5000);
            raw.getOutputStream().write(tls11ClientHello());
            int first = raw.getInputStream().read();
            // A ServerHello would start with 0x16 (handshake); refused, the answer is an alert
            // (0x15) or the connection closing without one (Grizzly does not flush the JDK's alert).
            assertTrue(first == 0x15 || first == -1, "refused, not answered with a ServerHello: " + first);
            raw.getInputStream().readAllBytes();
        }
        try (SSLSocket socket = connect(context, "localhost", "TLSv1.2")) {
            assertEquals("TLSv1.2", socket.getSession().getProtocol());
        }
        // The refused handshake did not stop the listener.
        try (SSLSocket socket = connect(context, "localhost")) {
            assertEquals("TLSv1.3", socket.getSession().getProtocol());
        }
    }

    /** A minimal TLS 1.1 ClientHello: ECDHE-ECDSA and ECDHE-RSA with AES-128-CBC-SHA, no extensions but the curves. */
    private static byte[] tls11ClientHello() {
        byte[] random = new byte[32];
        new java.util.Random(11).nextBytes(random);
        java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream();
        body.write(3);
        body.write(2);
        body.writeBytes(random);
        body.write(0);
        body.writeBytes(new byte[] {0, 4, (byte) 0xc0, 0x09, (byte) 0xc0, 0x13});
        body.writeBytes(new byte[] {1, 0});
        body.writeBytes(new byte[] {0, 14,
                0, 10, 0, 4, 0, 2, 0, 23,
                0, 11, 0, 2, 1, 0});
        byte[] hello = body.toByteArray();
        java.io.ByteArrayOutputStream record = new java.io.ByteArrayOutputStream();
        record.writeBytes(new byte[] {0x16, 3, 2, (byte) ((hello.length + 4) >> 8), (byte) (hello.length + 4), 1, 0,
                (byte) (hello.length >> 8), (byte) hello.length});
        record.writeBytes(hello);
        return record.toByteArray();
    }

    @Test
    void aRequiredClientCertificateIsChecked() throws Exception {
        start("client-auth = required, client-ca = \"" + certs.ca().certificateFile() + "\"\n");
        TestCertificates.Issued client = certs.leaf("client", Duration.ofDays(30), "client.test");
        try (SSLSocket socket = connect(certs.clientContext(client), "localhost")) {
            String response = exchange(socket, "GET /x HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
            assertTrue(response.startsWith("HTTP/1.1 200"), response);
        }
        // TLS 1.3 reports a missing certificate after the handshake, on the first read.
        assertThrows(IOException.class, () -> {
            try (SSLSocket socket = connect(certs.clientContext(null), "localhost")) {
                String response = exchange(socket, "GET /x HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
                if (!response.isEmpty()) {
                    throw new AssertionError("answered without a client certificate: " + response);
                }
                throw new IOException("closed without an answer");
            }
        });
    }

    @Test
    void aChangedClientCaFileDecidesNewHandshakes() throws Exception {
        TestCertificates other = new TestCertificates(Files.createDirectories(dir.resolve("other-ca")));
        java.nio.file.Path clientCa = dir.resolve("clients-ca.pem");
        Files.copy(certs.ca().certificateFile(), clientCa);
        start("client-auth = required, client-ca = \"" + clientCa + "\"\n");
        TestCertificates.Issued firstClient = certs.leaf("first-client", Duration.ofDays(30), "first.test");
        SSLContext first = certs.clientContext(firstClient);
        SSLContext second = certs.clientContext(other.leaf("second-client", Duration.ofDays(30), "second.test"), other);
        String request = "GET /ca HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
        assertTrue(served(first, request), "a client of the configured CA is served");
        assertTrue(!served(second, request), "a client of another CA is not");
        Files.copy(other.ca().certificateFile(), clientCa, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        io.kodiak.support.Await.await(() -> served(second, request), "the other CA's client served once client-ca names it");
        // A new client of the first CA is refused now. (One that resumes a TLS session made before
        // the change keeps that session's verdict until it expires, as with nginx: a fresh context.)
        assertTrue(!served(certs.clientContext(firstClient), request), "the first CA's client is refused now");
    }

    /** True when a request over a new connection with {@code context}'s client certificate got a 200. */
    private boolean served(SSLContext context, String request) {
        try (SSLSocket socket = connect(context, "localhost")) {
            return exchange(socket, request).startsWith("HTTP/1.1 200");
        } catch (IOException refused) {
            return false;
        }
    }

    @Test
    void badTlsSettingsAreRefusedNamingTheKey() throws Exception {
        TestCertificates.Issued old = certs.expired("old", "old.test");
        String route = "proxy.routes = [ { prefix = \"/\", upstream = \"http://127.0.0.1:9/\" } ]\n";
        ConfigException expired = assertThrows(ConfigException.class, () -> ConfigLoader.fromConfig(ConfigFactory.parseString(
                route + "proxy.listener.tls { certificate = \"" + old.certificateFile() + "\", key = \"" + old.keyFile() + "\" }")));
        assertTrue(expired.getMessage().contains("proxy.listener.tls.certificate") && expired.getMessage().contains("expired"),
                expired.getMessage());
        ConfigException mismatched = assertThrows(ConfigException.class, () -> ConfigLoader.fromConfig(ConfigFactory.parseString(
                route + "proxy.listener.tls { certificate = \"" + main.certificateFile() + "\", key = \"" + api.keyFile() + "\" }")));
        assertTrue(mismatched.getMessage().contains("is not the key of the certificate"), mismatched.getMessage());
        ConfigException tls11 = assertThrows(ConfigException.class, () -> ConfigLoader.fromConfig(ConfigFactory.parseString(
                route + "proxy.listener.tls { certificate = \"" + main.certificateFile() + "\", key = \"" + main.keyFile()
                        + "\", protocols = [\"TLSv1.1\"] }")));
        assertTrue(tls11.getMessage().contains("proxy.listener.tls.protocols"), tls11.getMessage());
        ConfigException missing = assertThrows(ConfigException.class, () -> ConfigLoader.fromConfig(ConfigFactory.parseString(
                route + "proxy.listener.tls { certificate = \"" + dir.resolve("nope.pem") + "\", key = \"" + main.keyFile() + "\" }")));
        assertTrue(missing.getMessage().contains("proxy.listener.tls.certificate") && missing.getMessage().contains("readable"),
                missing.getMessage());
        ConfigException provider = assertThrows(ConfigException.class, () -> ConfigLoader.fromConfig(ConfigFactory.parseString(
                route + "proxy.listener.tls { certificate = \"" + main.certificateFile() + "\", key = \"" + main.keyFile()
                        + "\", provider = openssl }")));
        assertTrue(provider.getMessage().contains("proxy.listener.tls.provider") && provider.getMessage().contains("jsse or conscrypt"),
                provider.getMessage());
        TestCertificates.Issued soon = certs.leaf("soon", Duration.ofDays(3), "soon.test");
        assertTrue(ConfigLoader.fromConfig(ConfigFactory.parseString(route + "proxy.listener.tls { certificate = \""
                + soon.certificateFile() + "\", key = \"" + soon.keyFile() + "\" }")).warnings().get(0).contains("within 14 days"));
    }

    @Test
    void changedCertificateFilesServeNewHandshakesWhileAnOpenConnectionGoesOn() throws Exception {
        start("");
        SSLContext context = certs.clientContext(null);
        try (SSLSocket open = connect(context, "localhost")) {
            assertEquals(main.certificate(), open.getSession().getPeerCertificates()[0]);
            TestCertificates.Issued renewed = certs.leaf("renewed", Duration.ofDays(90), "localhost", "proxy.test");
            Files.copy(renewed.keyFile(), main.keyFile(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            Files.copy(renewed.certificateFile(), main.certificateFile(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            io.kodiak.support.Await.await(() -> {
                try (SSLSocket fresh = connect(context, "localhost")) {
                    return renewed.certificate().equals(fresh.getSession().getPeerCertificates()[0]);
                } catch (IOException e) {
                    return false;
                }
            }, "a new handshake gets the renewed certificate");
            String response = exchange(open, "GET /still HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
            assertTrue(response.startsWith("HTTP/1.1 200"), "the connection opened before goes on: " + response);
        }
    }

    @Test
    void aReloadToOtherCertificateFilesServesNewHandshakesWhileAnOpenConnectionGoesOn() throws Exception {
        start("");
        SSLContext context = certs.clientContext(null);
        TestCertificates.Issued other = certs.leaf("other", Duration.ofDays(90), "localhost", "proxy.test");
        try (SSLSocket open = connect(context, "localhost")) {
            assertEquals(main.certificate(), open.getSession().getPeerCertificates()[0]);

            proxy.reload("proxy.routes = [ { prefix = \"/\", upstream = \"" + upstream.url("/") + "\" } ]\n"
                    + "proxy.listener.tls { certificate = \"" + other.certificateFile() + "\", key = \"" + other.keyFile() + "\" }\n");

            try (SSLSocket fresh = connect(context, "localhost")) {
                assertEquals(other.certificate(), fresh.getSession().getPeerCertificates()[0], "the reloaded pair");
                assertTrue(exchange(fresh, "GET /new HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                        .startsWith("HTTP/1.1 200"));
            }
            String response = exchange(open, "GET /still HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
            assertTrue(response.startsWith("HTTP/1.1 200"), "the connection opened before goes on: " + response);
        }
    }

    @Test
    void aReloadToACertificateThatDoesNotMatchItsKeyIsRefusedAndTheOldPairServes() throws Exception {
        start("");
        SSLContext context = certs.clientContext(null);
        TestCertificates.Issued other = certs.leaf("other", Duration.ofDays(90), "localhost");
        // Checked when the file is read, as at start: the daemon's reload refuses it there.
        io.kodiak.config.ConfigException refused = assertThrows(
                io.kodiak.config.ConfigException.class, () -> proxy.reload("proxy.routes = [ { prefix = \"/\", upstream = \""
                        + upstream.url("/") + "\" } ]\nproxy.listener.tls { certificate = \"" + other.certificateFile()
                        + "\", key = \"" + main.keyFile() + "\" }\n"));
        assertTrue(refused.getMessage().contains("proxy.listener.tls.certificate"), refused.getMessage());
        try (SSLSocket fresh = connect(context, "localhost")) {
            assertEquals(main.certificate(), fresh.getSession().getPeerCertificates()[0]);
        }
        assertEquals(1, proxy.kodiak().generation().number());
    }

    @Test
    void aClientAskingToRenegotiateIsRefusedAndTheListenerGoesOn() throws Exception {
        start("");
        SSLContext context = certs.clientContext(null);
        try (SSLSocket socket = connect(context, "localhost", "TLSv1.2")) {
            socket.getOutputStream().write("GET /a HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            assertTrue(socket.getInputStream().read() > 0, "served before renegotiating");
            assertThrows(IOException.class, () -> {
                socket.startHandshake();
                // The refusal may come as an alert on the next read.
                socket.getOutputStream().write("GET /b HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                byte[] rest = socket.getInputStream().readAllBytes();
                throw new IOException("closed after " + rest.length + " bytes");
            });
        }
        try (SSLSocket next = connect(context, "localhost")) {
            String response = exchange(next, "GET /c HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
            assertTrue(response.startsWith("HTTP/1.1 200"), response);
        }
    }

    @Test
    void theConscryptProviderServesTheSameWay() throws Exception {
        assumeTrue(TlsSettings.Provider.CONSCRYPT.available(), "Conscrypt's native library loads here");
        start("provider = conscrypt\n");
        HttpResponse<String> response = post("/c", "boring");
        assertEquals(200, response.statusCode());
        assertEquals("boring", response.body());
        try (SSLSocket socket = connect(certs.clientContext(null), "api.example.com")) {
            assertEquals(api.certificate(), socket.getSession().getPeerCertificates()[0], "SNI through Conscrypt");
            assertEquals("h2", socket.getApplicationProtocol(), "ALPN through Conscrypt");
        }
    }

    /**
     * Each Conscrypt engine holds a pipe (two descriptors) until it is closed both ways; Grizzly
     * never closes engines, so they stayed open until a collection ran the finalizers and a busy
     * listener ran out of files.
     */
    @Test
    void conscryptConnectionsGiveTheirDescriptorsBack() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/fd")), "Linux /proc");
        assumeTrue(TlsSettings.Provider.CONSCRYPT.available(), "Conscrypt's native library loads here");
        start("provider = conscrypt\n");
        long pipesBefore = openPipes();
        SSLContext context = certs.clientContext(null);
        for (int i = 0; i < 40; i++) {
            // The proxy closes first (Connection: close); then the client's close() sends its close_notify.
            try (SSLSocket socket = connect(context, "localhost")) {
                String response = exchange(socket, "GET /close" + i + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
                assertTrue(response.startsWith("HTTP/1.1 200"), response);
            }
            // The client closes first, with a close_notify on a connection the proxy keeps open.
            try (SSLSocket socket = connect(context, "localhost")) {
                socket.getOutputStream().write(("GET /keep" + i + " HTTP/1.1\r\nHost: localhost\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                socket.getOutputStream().flush();
                assertTrue(TlsTalk.readHead(socket.getInputStream()).startsWith("HTTP/1.1 200"), "keep-alive answer " + i);
                assertEquals("ok", new String(socket.getInputStream().readNBytes(2), StandardCharsets.US_ASCII));
            }
        }
        // No slack: nothing else in this process opens pipes, and a leak may be only a few (a
        // collection between the connections finalizes some engines).
        Await.await(() -> openPipes() <= pipesBefore, () -> "the engines' pipes closed: " + openPipes() + " open, " + pipesBefore + " before");
    }

    /**
     * Bytes after a client's close_notify: the engine is closed inbound and consumes nothing (the
     * JDK's and Conscrypt's alike), and Grizzly handed the unconsumed bytes back to it as the next
     * read's input, round and round on a selector thread (every connection on that thread starved).
     * They are dropped and the connection closes; every other client is served.
     */
    @ParameterizedTest
    @ValueSource(strings = {"jsse", "conscrypt"})
    void bytesAfterCloseNotifyAreDroppedAndTheConnectionCloses(String provider) throws Exception {
        assumeTrue(TlsSettings.Provider.parse(provider).available(), provider + " loads here");
        start("provider = " + provider + "\n");
        SSLContext context = certs.clientContext(null);
        for (int i = 0; i < 8; i++) {
            // One per selector thread at least: the proxy's selectors take connections in turn.
            try (java.net.Socket plain = new java.net.Socket(InetAddress.getLoopbackAddress(), proxy.port());
                 SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket(plain, "localhost", proxy.port(), false)) {
                plain.setSoTimeout(5000);
                socket.startHandshake();
                socket.shutdownOutput();   // TLS 1.3: a close_notify, the read side stays open
                // A whole record by its header (application data, TLS 1.2 framing, 5 bytes), so
                // that the TLS layer hands it to the engine rather than wait for more.
                plain.getOutputStream().write(new byte[] {0x17, 0x03, 0x03, 0x00, 0x05, 1, 2, 3, 4, 5});
                plain.getOutputStream().flush();
                try {
                    assertEquals(-1, socket.getInputStream().read(), "the proxy closes the connection");
                } catch (java.net.SocketException reset) {
                    // closed with the bytes unread: a reset is as good an answer
                }
            }
        }
        for (int i = 0; i < 4; i++) {
            try (SSLSocket next = connect(context, "localhost")) {
                String response = exchange(next, "GET /after HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
                assertTrue(response.startsWith("HTTP/1.1 200"), "served after them: " + response);
            }
        }
    }

    /** Pipes this process holds open: what each live Conscrypt engine keeps. */
    private static long openPipes() {
        try (java.util.stream.Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.filter(fd -> {
                try {
                    return Files.readSymbolicLink(fd).toString().startsWith("pipe:");
                } catch (IOException gone) {
                    return false;
                }
            }).count();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
