package io.kodiak.admin;

import io.kodiak.support.TestUpstream;
import io.kodiak.tls.TestCertificates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLSocket;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertTrue;

class TlsMetricsTest {
    @TempDir
    Path dir;

    @Test
    void handshakesAreCountedByProtocolAndCipherAndFailuresByReason() throws Exception {
        TestCertificates certs = new TestCertificates(dir);
        TestCertificates.Issued server = certs.leaf("server", Duration.ofDays(30), "localhost");
        try (TestUpstream upstream = TestUpstream.start();
             AdminHarness proxy = AdminHarness.start("proxy.routes = [ { prefix = \"/\", upstream = \""
                     + upstream.url("/") + "\" } ]\nproxy.listener.tls { certificate = \"" + server.certificateFile()
                     + "\", key = \"" + server.keyFile() + "\" }")) {
            try (SSLSocket ok = (SSLSocket) certs.clientContext(null).getSocketFactory()
                    .createSocket(InetAddress.getLoopbackAddress(), proxy.kodiak.port())) {
                ok.startHandshake();
            }
            // Plain HTTP to the TLS port: the handshake fails on the first bytes.
            try (java.net.Socket plain = new java.net.Socket(InetAddress.getLoopbackAddress(), proxy.kodiak.port())) {
                plain.setSoTimeout(5000);
                plain.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                plain.getInputStream().readAllBytes();
            }
            io.kodiak.support.Await.await(() -> {
                try {
                    String metrics = proxy.metrics();
                    return metrics.contains("kodiak_tls_handshakes_total{cipher=\"TLS_")
                            && metrics.contains("protocol=\"TLSv1.3\",side=\"client\"} 1.0")
                            && metrics.contains("kodiak_tls_handshake_failures_total{reason=\"handshake\",side=\"client\"} 1.0");
                } catch (Exception e) {
                    return false;
                }
            }, "one handshake and one failure counted");
            assertTrue(proxy.metrics().contains("# HELP kodiak_tls_handshakes_total"));
        }
    }
}
