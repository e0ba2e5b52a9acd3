package io.kodiak.support;

import io.kodiak.tls.TestCertificates;
import org.glassfish.grizzly.http.server.NetworkListener;
import org.glassfish.grizzly.ssl.SSLEngineConfigurator;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The forwarding suite's second run: with {@code -Dkodiak.test.tls=true} (a surefire execution of
 * its own), the harness's proxies listen with TLS and speak TLS to upstreams, the test upstreams
 * serve TLS, and the test clients connect with TLS, so every forwarding test runs again over TLS on
 * both sides, unchanged. Without the property everything is plain, as before.
 */
public final class TestTls {
    /** The suite runs over TLS. */
    public static final boolean ON = Boolean.getBoolean("kodiak.test.tls");
    private static Material material;

    private TestTls() {
    }

    /** One CA and one certificate for "localhost" and 127.0.0.1, shared by proxy and upstreams. */
    private record Material(TestCertificates certificates, TestCertificates.Issued leaf, SSLContext client,
                            SSLContext server) {
    }

    private static synchronized Material material() {
        if (material == null) {
            try {
                Path dir = Files.createTempDirectory("kodiak-test-tls");
                dir.toFile().deleteOnExit();
                TestCertificates certificates = new TestCertificates(dir);
                TestCertificates.Issued leaf = certificates.leaf("suite", Duration.ofDays(30), "localhost", "127.0.0.1");
                for (Path file : new Path[] {leaf.certificateFile(), leaf.keyFile(), certificates.ca().certificateFile()}) {
                    file.toFile().deleteOnExit();
                }
                material = new Material(certificates, leaf, certificates.clientContext(null),
                        certificates.serverContext(leaf));
            } catch (Exception e) {
                throw new IllegalStateException("cannot make the test certificates", e);
            }
        }
        return material;
    }

    /** "http" or "https": the scheme of every URL the suite builds. */
    public static String scheme() {
        return ON ? "https" : "http";
    }

    /** "ws" or "wss". */
    public static String webSocketScheme() {
        return ON ? "wss" : "ws";
    }

    /** The harness's proxy settings: a TLS listener and upstream TLS trusting the test CA (none when plain). */
    public static String proxySettings() {
        if (!ON) {
            return "";
        }
        Material m = material();
        return "proxy.listener.tls { certificate = \"" + m.leaf().certificateFile() + "\", key = \""
                + m.leaf().keyFile() + "\" }\nproxy.upstream.tls { trust = \""
                + m.certificates().ca().certificateFile() + "\" }\n";
    }

    /** A TLS listener's settings with the suite's certificate, whatever mode the suite runs in. */
    public static String tlsListener() {
        Material m = material();
        return "proxy.listener.tls { certificate = \"" + m.leaf().certificateFile() + "\", key = \""
                + m.leaf().keyFile() + "\" }\n";
    }

    /** Upstream TLS trusting the suite's CA, whatever mode the suite runs in. */
    public static String upstreamTrust() {
        return "proxy.upstream.tls { trust = \"" + material().certificates().ca().certificateFile() + "\" }\n";
    }

    /** A client context trusting the suite's CA, whatever mode the suite runs in. */
    public static javax.net.ssl.SSLContext trustingClientContext() {
        return material().client();
    }

    /** A client connection to {@code port} on 127.0.0.1, handshaken when TLS is on. */
    public static Socket connect(int port) throws IOException {
        return over(new Socket("127.0.0.1", port), port);
    }

    /** As {@link #connect(int)}, a TLS client limited to {@code protocols} (when TLS is on). */
    public static Socket connect(int port, String... protocols) throws IOException {
        return over(new Socket("127.0.0.1", port), port, protocols);
    }

    /**
     * As {@link #connect(int)}, with a receive buffer of {@code receiveBuffer} bytes set before
     * connecting (so it bounds the TCP window): a client that stops reading stops the proxy's
     * writes after little data.
     */
    public static Socket connectWithReceiveBuffer(int port, int receiveBuffer) throws IOException {
        Socket plain = new Socket();
        plain.setReceiveBufferSize(receiveBuffer);
        plain.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        return over(plain, port);
    }

    private static Socket over(Socket plain, int port, String... protocols) throws IOException {
        if (!ON) {
            return plain;
        }
        try {
            // The timeout RawHttp uses, here before the handshake: a stuck listener fails the test.
            plain.setSoTimeout(20_000);
            SSLSocket socket = (SSLSocket) material().client().getSocketFactory().createSocket(plain, "127.0.0.1", port, true);
            if (protocols.length > 0) {
                socket.setEnabledProtocols(protocols);
            }
            socket.startHandshake();
            return socket;
        } catch (IOException | RuntimeException e) {
            plain.close();
            throw e;
        }
    }

    /** A listening socket on 127.0.0.1, any free port; TLS when on. */
    public static ServerSocket listen(int backlog) throws IOException {
        return listen(0, backlog);
    }

    /** A listening socket on 127.0.0.1:{@code port} (0: any free one), reusing the address; TLS when on. */
    public static ServerSocket listen(int port, int backlog) throws IOException {
        ServerSocket server = ON ? material().server().getServerSocketFactory().createServerSocket() : new ServerSocket();
        server.setReuseAddress(true);
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), backlog);
        return server;
    }

    /**
     * A plain listening socket on 127.0.0.1:{@code port} (0: any free one), reusing the address:
     * for servers that put TLS over each accepted socket themselves ({@link #serverSide}) and so
     * keep the plain one, which a reset can close at once.
     */
    public static ServerSocket listenPlain(int port, int backlog) throws IOException {
        return listenPlain(InetAddress.getLoopbackAddress(), port, backlog);
    }

    /** As above on {@code address}. */
    public static ServerSocket listenPlain(InetAddress address, int port, int backlog) throws IOException {
        ServerSocket server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(new InetSocketAddress(address, port), backlog);
        return server;
    }

    /** The server side of an accepted plain socket: TLS over it when on, else the socket itself. */
    public static Socket serverSide(Socket accepted) throws IOException {
        return ON ? material().server().getSocketFactory().createSocket(accepted, null, true) : accepted;
    }

    /** A java.net.http client that trusts the test CA when TLS is on. */
    public static HttpClient.Builder httpClient() {
        HttpClient.Builder builder = HttpClient.newBuilder();
        return ON ? builder.sslContext(material().client()) : builder;
    }

    /** The server-side context (for test servers that take one). */
    public static SSLContext serverContext() {
        return material().server();
    }

    /** Makes a Grizzly test server's listener speak TLS when on. */
    public static void secure(NetworkListener listener) {
        if (ON) {
            listener.setSecure(true);
            listener.setSSLEngineConfig(new SSLEngineConfigurator(material().server(), false, false, false));
        }
    }
}
