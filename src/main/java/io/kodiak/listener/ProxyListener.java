package io.kodiak.listener;

import io.kodiak.tls.CertificateWatch;
import io.kodiak.tls.PemMaterial;
import io.kodiak.tls.ServerTls;
import io.kodiak.tls.TlsObserver;
import io.kodiak.tls.TlsSettings;

import io.kodiak.config.ProxyConfig;
import io.kodiak.client.ClientFilter;
import io.kodiak.client.ClientSettings;
import io.kodiak.exchange.Admission;
import io.kodiak.exchange.Drain;
import org.glassfish.grizzly.GracefulShutdownListener;
import org.glassfish.grizzly.ShutdownContext;
import org.glassfish.grizzly.filterchain.FilterChainBuilder;
import org.glassfish.grizzly.filterchain.TransportFilter;
import org.glassfish.grizzly.memory.MemoryManager;
import org.glassfish.grizzly.nio.RoundRobinConnectionDistributor;
import org.glassfish.grizzly.nio.transport.TCPNIOServerConnection;
import org.glassfish.grizzly.nio.transport.TCPNIOTransport;
import org.glassfish.grizzly.nio.transport.TCPNIOTransportBuilder;
import org.glassfish.grizzly.threadpool.ThreadPoolConfig;
import org.glassfish.grizzly.utils.DelayedExecutor;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The client-facing listener: a TCP transport whose chain is Grizzly's TransportFilter and
 * Kodiak's own HTTP/1.1 server side ({@link ClientFilter}), so request and response bytes pass
 * between the two sides as the transport read them.
 */
public final class ProxyListener {
    /**
     * Bytes queued for one client before reads from its upstream pause (back-pressure). Grizzly's
     * default is 4x the socket send buffer, several MiB on loopback: too much per connection for a
     * proxy that holds thousands of them.
     */
    public static final int WRITE_QUEUE_LIMIT = 256 * 1024;
    private final ProxyConfig.Listener settings;
    private final TCPNIOTransport transport;
    private final Drain drain;
    private final ConnectionLimit connections;
    private TCPNIOServerConnection server;
    /** Null without TLS. */
    private final CertificateWatch certificates;

    /** {@code maxConnections}: the resolved client connection limit (see {@link ConnectionBudget}). */
    public ProxyListener(ProxyConfig.Listener settings, int maxConnections, Admission admission, Drain drain,
                         DelayedExecutor timers, MemoryManager memory, TlsObserver tlsObserver) {
        this.settings = settings;
        this.drain = drain;
        this.connections = new ConnectionLimit(maxConnections);
        ClientSettings client = new ClientSettings(settings.maxHeaderSize(), settings.persistentConnections(),
                settings.maxRequestsPerConnection(), idleSeconds(settings) * 1000L);
        FilterChainBuilder chain = FilterChainBuilder.stateless().add(new TransportFilter());
        if (settings.tls() != null) {
            // TLS under Kodiak's codec: the codec reads and writes plain bytes either way.
            ServerTls tls = serverTls(settings.tls());
            chain.add(tls.filter(tlsObserver));
            certificates = new CertificateWatch(tls, settings.tls(), timers);
        } else {
            certificates = null;
        }
        chain.add(new ClientFilter(client, admission, timers));

        TCPNIOTransportBuilder builder = TCPNIOTransportBuilder.newInstance()
                .setIOStrategy(IoStrategies.of(settings.ioStrategy()))
                .setMemoryManager(memory)
                // One more than the I/O threads: selector 0 serves the listening socket alone (below).
                .setSelectorRunnersCount(settings.selectorThreads() + 1)
                .setTcpNoDelay(true)
                .setReuseAddress(true)
                .setServerConnectionBackLog(8192);
        if (settings.ioStrategy().usesWorkerPool()) {
            builder.setWorkerThreadPoolConfig(ThreadPoolConfig.defaultConfig().copy()
                    .setPoolName("kodiak-worker")
                    .setCorePoolSize(settings.workerThreads())
                    .setMaxPoolSize(settings.workerThreads()));
        }
        transport = builder.build();
        transport.getAsyncQueueIO().getWriter().setMaxPendingBytesPerConnection(WRITE_QUEUE_LIMIT);
        transport.setName("kodiak-listener");
        // Grizzly accepts one connection per selector wake-up. Sharing a selector with hundreds of
        // busy connections, a burst of new clients waited in the listen queue for seconds (p99 over
        // 1 s at 640 connections); on its own thread the listening socket is served at once.
        // Accepted connections go round-robin to the other selectors.
        transport.setNIOChannelDistributor(new RoundRobinConnectionDistributor(transport, true, true));
        transport.setProcessor(chain.build());
        transport.addShutdownListener(new DrainOnShutdown());
    }

    /** Loaded when the configuration was read; a file changed since then and broken now stops the start here. */
    private static ServerTls serverTls(TlsSettings tls) {
        try {
            return ServerTls.create(tls);
        } catch (PemMaterial.Unusable e) {
            throw new IllegalStateException("proxy.listener.tls: " + e.getMessage(), e);
        }
    }

    private static int idleSeconds(ProxyConfig.Listener settings) {
        return (int) Math.max(1, settings.idleTimeout().toSeconds());
    }

    public void start() throws IOException {
        transport.start();
        server = transport.bind(settings.host(), settings.port());
        connections.attach(server);
        if (certificates != null) {
            certificates.start();
        }
    }

    /** Client connections open now. */
    public int openConnections() {
        return connections.open();
    }

    /** The most client connections held at once; beyond it, accepting pauses. */
    public int maxConnections() {
        return connections.max();
    }

    /** True while the connection limit holds new clients in the listen queue. */
    public boolean acceptPaused() {
        return connections.paused();
    }

    /** Times accepting paused at the connection limit since the start. */
    public long acceptPauses() {
        return connections.pauses();
    }

    /** The bound port (differs from the configured one when that is 0, as in tests). */
    public int port() {
        return ((InetSocketAddress) server.getLocalAddress()).getPort();
    }

    /**
     * Stops accepting, lets in-flight exchanges finish for at most {@code graceMillis}, then closes
     * every remaining connection.
     */
    public void stop(long graceMillis) {
        if (certificates != null) {
            certificates.stop();
        }
        // Before the unbind: Grizzly calls the shutdown listener on its own thread after unbinding,
        // and a response finishing in between must already say Connection: close.
        drain.begin();
        try {
            transport.shutdown(graceMillis, TimeUnit.MILLISECONDS).get(graceMillis + 5_000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // Grace expired or shutdown failed: fall through to the hard stop.
        }
        try {
            transport.shutdownNow();
        } catch (IOException e) {
            // Closing sockets on the way out; nothing useful is left to do with the error.
        }
    }

    private final class DrainOnShutdown implements GracefulShutdownListener {
        @Override
        public void shutdownRequested(ShutdownContext context) {
            drain.start(context::ready);
        }

        @Override
        public void shutdownForced() {
        }
    }
}
