package io.kodiak.listener;

import io.kodiak.client.ClientFilter;
import io.kodiak.client.ClientSettings;
import io.kodiak.config.ProxyConfig;
import io.kodiak.exchange.Admission;
import io.kodiak.exchange.Drain;
import io.kodiak.tls.CertificateWatch;
import io.kodiak.tls.PemMaterial;
import io.kodiak.tls.ServerTls;
import io.kodiak.tls.TlsObserver;
import io.kodiak.tls.TlsSettings;
import org.glassfish.grizzly.GracefulShutdownListener;
import org.glassfish.grizzly.ShutdownContext;
import org.glassfish.grizzly.filterchain.FilterChain;
import org.glassfish.grizzly.filterchain.FilterChainBuilder;
import org.glassfish.grizzly.filterchain.TransportFilter;
import org.glassfish.grizzly.memory.MemoryManager;
import org.glassfish.grizzly.nio.RoundRobinConnectionDistributor;
import org.glassfish.grizzly.nio.transport.TCPNIOBindingHandler;
import org.glassfish.grizzly.nio.transport.TCPNIOServerConnection;
import org.glassfish.grizzly.nio.transport.TCPNIOTransport;
import org.glassfish.grizzly.nio.transport.TCPNIOTransportBuilder;
import org.glassfish.grizzly.threadpool.ThreadPoolConfig;
import org.glassfish.grizzly.utils.DelayedExecutor;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The client-facing listener: one TCP transport (its selector threads, worker pool and write
 * queues) serving every configured address. Each address has its own filter chain, Grizzly's
 * TransportFilter, TLS where configured, and Kodiak's own HTTP/1.1 server side
 * ({@link ClientFilter}), so request and response bytes pass between the two sides as the transport
 * read them. The connection limit counts the connections of all addresses together.
 */
public final class ProxyListener {
    /**
     * Bytes queued for one client before reads from its upstream pause (back-pressure). Grizzly's
     * default is 4x the socket send buffer, several MiB on loopback: too much per connection for a
     * proxy that holds thousands of them.
     */
    public static final int WRITE_QUEUE_LIMIT = 256 * 1024;
    private static final int BACKLOG = 8192;
    private final TCPNIOTransport transport;
    /** The transport's selector threads, set by start(): their end releases the listening sockets. */
    private ExecutorService selectorThreads;
    private final Drain drain;
    private final ConnectionLimit connections;
    private final List<Binding> bindings = new ArrayList<>();

    /** {@code maxConnections}: the resolved client connection limit (see {@link ConnectionBudget}). */
    public ProxyListener(ProxyConfig.Listener settings, List<ProxyConfig.Endpoint> endpoints, int maxConnections,
                         Admission admission, Drain drain, DelayedExecutor timers, MemoryManager memory,
                         TlsObserver tlsObserver) {
        this.drain = drain;
        this.connections = new ConnectionLimit(maxConnections);
        for (ProxyConfig.Endpoint endpoint : endpoints) {
            bindings.add(new Binding(endpoint, settings, admission, timers, tlsObserver));
        }

        TCPNIOTransportBuilder builder = TCPNIOTransportBuilder.newInstance()
                .setIOStrategy(IoStrategies.of(settings.ioStrategy()))
                .setMemoryManager(memory)
                // One more than the I/O threads: selector 0 serves the listening sockets alone (below).
                .setSelectorRunnersCount(settings.selectorThreads() + 1)
                .setTcpNoDelay(true)
                .setReuseAddress(true)
                .setServerConnectionBackLog(BACKLOG);
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
        // Each listening socket hands its connections its own chain (bind, below); the transport's
        // default is the first address's, and serves nothing else.
        transport.setProcessor(bindings.get(0).chain);
        transport.addShutdownListener(new DrainOnShutdown());
    }

    /**
     * Binds every address. One that cannot be bound stops the start, naming its key, and releases
     * the addresses already bound. proxy.listener's is bound last: once it accepts (what
     * bin/proxy.sh waits for), every address does.
     */
    public void start() throws IOException {
        transport.start();
        // Kept: a graceful shutdown drops the transport's reference before stop() could wait on it.
        selectorThreads = transport.getKernelThreadPool();
        try {
            for (int i = bindings.size() - 1; i >= 0; i--) {
                Binding binding = bindings.get(i);
                binding.bind(transport);
                connections.attach(binding.server);
            }
        } catch (IOException e) {
            try {
                shutdownAndReleaseAddresses();
            } catch (IOException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
        for (Binding binding : bindings) {
            binding.startWatch();
        }
    }

    /** Client connections open now, on every address. */
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

    /** proxy.listener's bound port (differs from the configured one when that is 0, as in tests). */
    public int port() {
        return port(0);
    }

    /** The bound port of address {@code index} of {@link ProxyConfig#endpoints()}. */
    public int port(int index) {
        return ((InetSocketAddress) bindings.get(index).server.getLocalAddress()).getPort();
    }

    /**
     * Stops accepting, lets in-flight exchanges finish for at most {@code graceMillis}, then closes
     * every remaining connection.
     */
    public void stop(long graceMillis) {
        for (Binding binding : bindings) {
            binding.stopWatch();
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
            shutdownAndReleaseAddresses();
        } catch (IOException e) {
            // Closing sockets on the way out; nothing useful is left to do with the error.
        }
    }

    /**
     * Stops the transport and returns once its addresses can be bound again. A listening channel
     * closed while registered with a selector keeps its socket until that selector deregisters
     * it, on its own thread, after Grizzly's close future has already completed; the selector
     * threads close their selectors (releasing every socket) on their way out, so waiting for the
     * kernel pool to end is waiting for the addresses (a retry or a restart on the same port
     * would otherwise fail on "Address already in use").
     */
    private void shutdownAndReleaseAddresses() throws IOException {
        transport.shutdownNow();
        if (selectorThreads != null) {
            try {
                selectorThreads.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** One address: its chain (with TLS where configured), its certificate watch, and once bound, its socket. */
    private static final class Binding {
        private final ProxyConfig.Endpoint endpoint;
        private final FilterChain chain;
        /** Null without TLS. */
        private final CertificateWatch certificates;
        private TCPNIOServerConnection server;

        Binding(ProxyConfig.Endpoint endpoint, ProxyConfig.Listener settings, Admission admission,
                DelayedExecutor timers, TlsObserver tlsObserver) {
            this.endpoint = endpoint;
            ClientSettings client = new ClientSettings(settings.maxHeaderSize(), settings.persistentConnections(),
                    settings.maxRequestsPerConnection(), idleSeconds(settings) * 1000L, endpoint.tls() != null);
            FilterChainBuilder builder = FilterChainBuilder.stateless().add(new TransportFilter());
            if (endpoint.tls() != null) {
                // TLS under Kodiak's codec: the codec reads and writes plain bytes either way.
                ServerTls tls = serverTls(endpoint);
                builder.add(tls.filter(tlsObserver));
                certificates = new CertificateWatch(tls, endpoint.tls(), timers);
            } else {
                certificates = null;
            }
            this.chain = builder.add(new ClientFilter(client, admission, timers)).build();
        }

        /** Loaded when the configuration was read; a file changed since then and broken now stops the start here. */
        private static ServerTls serverTls(ProxyConfig.Endpoint endpoint) {
            TlsSettings tls = endpoint.tls();
            try {
                return ServerTls.create(tls);
            } catch (PemMaterial.Unusable e) {
                throw new IllegalStateException(endpoint.key() + ".tls: " + e.getMessage(), e);
            }
        }

        void bind(TCPNIOTransport transport) throws IOException {
            try {
                server = TCPNIOBindingHandler.builder(transport).processor(chain).build()
                        .bind(new InetSocketAddress(endpoint.host(), endpoint.port()), BACKLOG);
            } catch (IOException e) {
                throw new IOException(endpoint.key() + " " + endpoint.host() + ":" + endpoint.port() + ": "
                        + e.getMessage(), e);
            }
        }

        void startWatch() {
            if (certificates != null) {
                certificates.start();
            }
        }

        void stopWatch() {
            if (certificates != null) {
                certificates.stop();
            }
        }
    }

    private static int idleSeconds(ProxyConfig.Listener settings) {
        return (int) Math.max(1, settings.idleTimeout().toSeconds());
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
