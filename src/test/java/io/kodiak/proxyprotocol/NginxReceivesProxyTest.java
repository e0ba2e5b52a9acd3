package io.kodiak.proxyprotocol;

import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static io.kodiak.support.Await.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * A real nginx reading Kodiak's PROXY headers ({@code listen ... proxy_protocol}) answers with the
 * address the header carried, its connection's serial number and the requests that connection
 * carried: a keep-alive client connection's requests arrive on one nginx connection, one header;
 * another client connection gets its own. Runs where nginx is installed.
 */
class NginxReceivesProxyTest {
    @TempDir
    Path dir;

    private static String nginx() {
        for (String candidate : new String[]{"/usr/sbin/nginx", "/usr/bin/nginx"}) {
            if (new File(candidate).canExecute()) {
                return candidate;
            }
        }
        Assumptions.abort("nginx not installed");
        return null;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** nginx's answer: "carried-address connection-serial requests-on-it". */
    private static String[] get(RawHttp client, String path) throws IOException {
        client.send("GET " + path + " HTTP/1.1\r\nHost: a\r\n\r\n");
        RawHttp.Response response = client.read();
        assertEquals(200, response.status(), response.toString());
        return response.bodyText().trim().split(" ");
    }

    @Test
    void aKeepAliveClientConnectionIsOneNginxConnectionWithOneHeader() throws Exception {
        String nginx = nginx();
        int port = freePort();
        Files.writeString(dir.resolve("nginx.conf"), """
                daemon off;
                master_process off;
                worker_processes 1;
                pid %1$s/nginx.pid;
                error_log %1$s/error.log warn;
                events { worker_connections 64; }
                http {
                  access_log off;
                  client_body_temp_path %1$s; proxy_temp_path %1$s; fastcgi_temp_path %1$s;
                  uwsgi_temp_path %1$s; scgi_temp_path %1$s;
                  server {
                    listen 127.0.0.1:%2$d proxy_protocol;
                    location / { return 200 "$proxy_protocol_addr $connection $connection_requests\\n"; }
                  }
                }
                """.formatted(dir, port));
        Process server = new ProcessBuilder(nginx, "-p", dir.toString(), "-c", dir.resolve("nginx.conf").toString(),
                "-e", dir.resolve("error.log").toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("nginx.out").toFile()).start();
        try {
            await(() -> {
                try (Socket probe = new Socket("127.0.0.1", port)) {
                    return true;
                } catch (IOException notYet) {
                    return !server.isAlive();
                }
            }, "nginx listening");
            for (String version : new String[]{"v1", "v2"}) {
                try (ProxyHarness proxy = ProxyHarness.forUpstream("http://127.0.0.1:" + port,
                        "proxy.upstream.proxy-protocol = \"" + version + "\"\n"
                                + "proxy.listeners = [ { port = 0, proxy-protocol = true } ]\n");
                     RawHttp a = new RawHttp(new Socket("127.0.0.1", proxy.kodiak().listener().port(1)));
                     RawHttp b = new RawHttp(new Socket("127.0.0.1", proxy.kodiak().listener().port(1)))) {
                    a.send("PROXY TCP4 203.0.113.7 192.0.2.1 51234 443\r\n");
                    b.send("PROXY TCP4 198.51.100.9 192.0.2.1 40000 443\r\n");
                    String[] a1 = get(a, "/a1");
                    String[] b1 = get(b, "/b1");
                    String[] a2 = get(a, "/a2");
                    String[] a3 = get(a, "/a3");
                    String[] b2 = get(b, "/b2");
                    assertEquals("203.0.113.7", a1[0], version);
                    assertEquals("198.51.100.9", b1[0], version);
                    // One nginx connection per client connection, its requests counted on it.
                    assertEquals(a1[1], a2[1], version);
                    assertEquals(a1[1], a3[1], version);
                    assertEquals(b1[1], b2[1], version);
                    assertNotEquals(a1[1], b1[1], version);
                    assertEquals("1 2 3", a1[2] + " " + a2[2] + " " + a3[2], version);
                    assertEquals("203.0.113.7", a3[0], version);
                    assertEquals("198.51.100.9", b2[0], version);
                }
            }
        } finally {
            server.destroy();
            server.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
