package io.kodiak.support;

import com.typesafe.config.ConfigFactory;
import io.kodiak.Kodiak;
import io.kodiak.ReloadRefusedException;
import io.kodiak.config.ProxyConfig;
import io.kodiak.config.ConfigLoader;

import java.io.IOException;
import java.net.URI;

/** A Kodiak instance on an ephemeral loopback port, configured by a HOCON snippet. */
public final class ProxyHarness implements AutoCloseable {
    private final Kodiak kodiak;

    private ProxyHarness(Kodiak kodiak) {
        this.kodiak = kodiak;
    }

    /** Starts Kodiak with one route "/" to {@code upstreamUrl} plus {@code extra} HOCON. */
    public static ProxyHarness forUpstream(String upstreamUrl, String extra) throws IOException {
        return start("proxy.routes = [ { prefix = \"/\", upstream = \"" + upstreamUrl + "\" } ]\n" + extra);
    }

    public static ProxyHarness start(String hocon) throws IOException {
        Kodiak kodiak = new Kodiak(config(hocon));
        kodiak.start();
        return new ProxyHarness(kodiak);
    }

    /**
     * The memory manager the forwarding suite runs under when {@code -Dkodiak.test.memory-manager}
     * names one (pom.xml's pooled-buffers run: buffers given back to a pool and handed out again
     * are where a byte of one exchange could end up in another).
     */
    private static final String MEMORY_MANAGER = System.getProperty("kodiak.test.memory-manager", "");

    /** {@code hocon} over the harness's base settings (any free port, no admin, TLS in the TLS suite). */
    public static ProxyConfig config(String hocon) {
        String base = "proxy.listener.port = 0\nproxy.admin.enabled = false\nproxy.shutdown.grace-period = 5s\n"
                + (MEMORY_MANAGER.isEmpty() ? "" : "proxy.buffers.memory-manager = \"" + MEMORY_MANAGER + "\"\n")
                + TestTls.proxySettings();
        return ConfigLoader.fromConfig(ConfigFactory.parseString(base + hocon));
    }

    /** Reloads {@code hocon} over the same base settings as {@link #start}; returns the generation now in service. */
    public long reload(String hocon) throws ReloadRefusedException {
        return kodiak.reload(config(hocon)).generation().number();
    }

    public int port() {
        return kodiak.port();
    }

    public URI uri(String pathAndQuery) {
        return URI.create(TestTls.scheme() + "://127.0.0.1:" + port() + pathAndQuery);
    }

    public Kodiak kodiak() {
        return kodiak;
    }

    @Override
    public void close() {
        kodiak.stop();
    }
}
