package io.kodiak.forward;

import io.kodiak.support.AccessLogLines;
import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import io.kodiak.support.TestUpstream;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Kodiak's own answers in the access log: $body_bytes_sent counts their bodies as it counts a
 * relayed one (a refusal before any exchange, and an exchange's failure), and a client's own error
 * names in the body the rule its request broke.
 */
class LocalAnswerBytesTest {

    private static int closedPort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static String lastLine(AccessLogLines lines, int before) throws InterruptedException {
        io.kodiak.support.Await.await(() -> lines.lines().size() > before, "the access log line");
        List<String> all = lines.lines();
        return all.get(all.size() - 1);
    }

    @Test
    void kodiaksOwnBodiesAreCountedAndAClientsErrorIsNamed() throws Exception {
        try (TestUpstream upstream = TestUpstream.start(); AccessLogLines lines = new AccessLogLines();
             ProxyHarness proxy = ProxyHarness.start("""
                     proxy.routes = [
                       { prefix = "/down/", upstream = "http://127.0.0.1:%d/" }
                       { prefix = "/echo", upstream = "%s" }
                     ]
                     proxy.access-log.format = "$status $body_bytes_sent"
                     """.formatted(closedPort(), upstream.url("/echo")))) {
            // No route: refused before any exchange.
            try (RawHttp client = new RawHttp(proxy.port())) {
                int before = lines.lines().size();
                RawHttp.Response notFound = client.send("GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n").read(false);
                assertEquals(404, notFound.status());
                assertEquals("404 " + notFound.body.length, lastLine(lines, before));
            }
            // The upstream refuses the connect: the exchange fails with Kodiak's 502.
            try (RawHttp client = new RawHttp(proxy.port())) {
                int before = lines.lines().size();
                RawHttp.Response down = client.send("GET /down/x HTTP/1.1\r\nHost: x\r\n\r\n").read(false);
                assertEquals(502, down.status());
                assertEquals("502 " + down.body.length, lastLine(lines, before));
            }
            // A chunked body that breaks its framing: 400, naming the rule it broke.
            try (RawHttp client = new RawHttp(proxy.port())) {
                int before = lines.lines().size();
                RawHttp.Response broken = client.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + "5\r\nhello\r\nzz\r\n").read(false);
                assertEquals(400, broken.status());
                assertTrue(broken.bodyText().startsWith("400 malformed request body (invalid chunked encoding): "),
                        broken.bodyText());
                assertEquals("400 " + broken.body.length, lastLine(lines, before));
            }
        }
    }
}
