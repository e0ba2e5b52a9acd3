package io.kodiak.proxyprotocol;

import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import io.kodiak.support.RecordingUpstream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static io.kodiak.support.Await.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Kodiak behind a real HAProxy in TCP mode with send-proxy-v2 (and its health checks with
 * check-send-proxy): the client's address, not HAProxy's, reaches the upstream; HAProxy's address
 * is the one trusted source, and the client going around it is closed unread. bin/test.sh installs
 * HAProxy and requires this test (-Dkodiak.test.peers=required); elsewhere it runs when HAProxy is there.
 */
class HaproxySendsProxyTest {
    @TempDir
    Path dir;

    private static String haproxy() {
        for (String candidate : new String[]{"/usr/sbin/haproxy", "/usr/bin/haproxy"}) {
            if (new File(candidate).canExecute()) {
                return candidate;
            }
        }
        if ("required".equals(System.getProperty("kodiak.test.peers"))) {
            throw new AssertionError("haproxy is not installed (bin/test.sh installs it)");
        }
        Assumptions.abort("haproxy not installed");
        return null;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @Test
    void theClientsAddressCrossesHaproxyInTcpMode() throws Exception {
        String haproxy = haproxy();
        try (RecordingUpstream upstream = new RecordingUpstream(RecordingUpstream.ECHO);
             ProxyHarness proxy = ProxyHarness.forUpstream(upstream.url("/"), "proxy.listener.proxy-protocol = true\n"
                     // HAProxy connects from 127.0.0.1: the one trusted source.
                     + "proxy.listener.proxy-protocol-trusted = [\"127.0.0.1/32\"]\n")) {
            int front = freePort();
            Path config = dir.resolve("haproxy.cfg");
            Files.writeString(config, """
                    global
                      log stderr local0 warning
                    defaults
                      mode tcp
                      timeout connect 5s
                      timeout client 30s
                      timeout server 30s
                    frontend f
                      bind 127.0.0.1:%d
                      default_backend k
                    backend k
                      server kodiak 127.0.0.1:%d send-proxy-v2 check check-send-proxy inter 200ms
                    """.formatted(front, proxy.port()));
            Process balancer = new ProcessBuilder(haproxy, "-db", "-f", config.toString())
                    .redirectErrorStream(true).redirectOutput(dir.resolve("haproxy.log").toFile()).start();
            try {
                ProxyProtocolCounts counts = proxy.kodiak().listener().proxyProtocol();
                // HAProxy's first health check, a LOCAL header, shows it is up and speaking the protocol.
                await(() -> counts.acceptedCount() >= 1 || !balancer.isAlive(), "HAProxy's first check");
                Socket socket = new Socket();
                // From another loopback address than HAProxy's own connections to Kodiak (127.0.0.1).
                socket.bind(new InetSocketAddress("127.0.0.2", 0));
                socket.connect(new InetSocketAddress("127.0.0.1", front), 5_000);
                try (RawHttp client = new RawHttp(socket)) {
                    client.send("GET /via-haproxy HTTP/1.1\r\nHost: a\r\n\r\n");
                    assertEquals(200, client.read().status());
                }
                assertEquals("127.0.0.2", upstream.received().get(0).header("x-forwarded-for"));
                for (ProxyHeaderRefused.Reason reason : ProxyHeaderRefused.Reason.values()) {
                    assertEquals(0, counts.refusedCount(reason), reason + ": " + Files.readString(dir.resolve("haproxy.log")));
                }
                // The same client straight to Kodiak, bypassing HAProxy, with a header of its own: closed unread.
                Socket bypass = new Socket();
                bypass.bind(new InetSocketAddress("127.0.0.2", 0));
                bypass.connect(new InetSocketAddress("127.0.0.1", proxy.port()), 5_000);
                try (RawHttp client = new RawHttp(bypass)) {
                    try {
                        client.send("PROXY TCP4 203.0.113.7 192.0.2.1 51234 443\r\nGET /spoofed HTTP/1.1\r\nHost: a\r\n\r\n");
                    } catch (IOException closedAlready) {
                        // closed at the accept
                    }
                    org.junit.jupiter.api.Assertions.assertTrue(client.drainedToTheEnd(), "closed unanswered");
                }
                await(() -> counts.refusedCount(ProxyHeaderRefused.Reason.UNTRUSTED) == 1, "the bypass counted as untrusted");
                assertEquals(1, upstream.received().size(), "the spoofed request never went upstream");
            } finally {
                balancer.destroy();
                balancer.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
