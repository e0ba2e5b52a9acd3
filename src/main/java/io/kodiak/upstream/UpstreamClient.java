package io.kodiak.upstream;

import io.kodiak.config.ProxyConfig;
import io.kodiak.config.UpstreamGroupConfig;
import io.kodiak.routing.Route;
import io.kodiak.routing.UpstreamTarget;
import io.kodiak.tls.PemMaterial;
import io.kodiak.tls.TlsObserver;
import io.kodiak.tls.UpstreamTls;
import io.kodiak.tls.UpstreamTlsSettings;
import org.glassfish.grizzly.SocketConnectorHandler;
import org.glassfish.grizzly.filterchain.FilterChainBuilder;
import org.glassfish.grizzly.nio.transport.TCPNIOConnectorHandler;
import org.glassfish.grizzly.filterchain.TransportFilter;
import org.glassfish.grizzly.memory.MemoryManager;
import org.glassfish.grizzly.nio.transport.TCPNIOTransport;
import org.glassfish.grizzly.nio.transport.TCPNIOTransportBuilder;
import org.glassfish.grizzly.strategies.SameThreadIOStrategy;
import org.glassfish.grizzly.utils.DelayedExecutor;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The upstream side: one client transport (its own selectors, so upstream I/O never queues
 * behind client I/O) whose chain is TransportFilter, then Kodiak's response codec
 * (UpstreamFilter); the upstream groups the routes name, one connection pool per server; and the
 * active health checks of the groups that have them.
 */
public final class UpstreamClient {
    private static final int WRITE_QUEUE_LIMIT = 256 * 1024;

    private final TCPNIOTransport transport;
    private final Map<String, UpstreamGroup> groups = new LinkedHashMap<>();
    private final HealthChecks healthChecks;
    private final TlsObserver tlsObserver;

    public UpstreamClient(ProxyConfig config, DelayedExecutor timers, MemoryManager memory, TlsObserver tlsObserver) {
        this.tlsObserver = tlsObserver;
        FilterChainBuilder chain = FilterChainBuilder.stateless()
                .add(new TransportFilter())
                .add(new UpstreamFilter());
        transport = TCPNIOTransportBuilder.newInstance()
                .setIOStrategy(SameThreadIOStrategy.getInstance())
                .setMemoryManager(memory)
                .setSelectorRunnersCount(config.listener().selectorThreads())
                .setTcpNoDelay(true)
                .setKeepAlive(true)
                .setReuseAddress(true)
                .setConnectionTimeout((int) Math.min(Integer.MAX_VALUE, config.upstream().connectTimeout().toMillis()))
                .build();
        transport.setProcessor(chain.build());
        // Same bound as the client side: bytes queued for one upstream before client reads pause.
        transport.getAsyncQueueIO().getWriter().setMaxPendingBytesPerConnection(WRITE_QUEUE_LIMIT);
        transport.setName("kodiak-upstream");
        healthChecks = new HealthChecks(transport, timers);

        // One TLS context per distinct setting (proxy.upstream.tls, and each group's own), shared
        // by the servers that use it, so TLS sessions are resumed across a group's servers.
        Map<UpstreamTlsSettings, UpstreamTls> contexts = new HashMap<>();
        for (UpstreamGroupConfig settings : config.groups()) {
            ProxyConfig.Upstream pool = settings.pool();
            List<UpstreamServer> servers = new ArrayList<>();
            for (UpstreamGroupConfig.Server server : settings.servers()) {
                SocketConnectorHandler connector = server.tls()
                        ? tlsConnector(contexts.computeIfAbsent(pool.tls(), tls -> upstreamTls(tls,
                                tls.equals(config.upstream().tls()) ? "proxy.upstream.tls" : "proxy.upstreams." + settings.name() + ".tls")),
                                server)
                        : transport;
                UpstreamPool connections = new UpstreamPool(new UpstreamTarget(server.host(), server.port(), ""),
                        connector, timers, pool.maxConnections(), pool.connectTimeout().toMillis(),
                        pool.idleTimeout().toMillis(), pool.persistentConnections());
                servers.add(new UpstreamServer(settings.name(), servers.size(), server, connections,
                        settings.passive(), settings.healthCheck()));
            }
            groups.put(settings.name(), new UpstreamGroup(settings, servers));
        }
    }

    /** {@code key}: where the settings come from, for the message when a file changed since it was checked. */
    private static UpstreamTls upstreamTls(UpstreamTlsSettings settings, String key) {
        try {
            return UpstreamTls.create(settings);
        } catch (PemMaterial.Unusable e) {
            throw new IllegalStateException(key + ": " + e.getMessage(), e);
        }
    }

    /**
     * Connections to an https:// server: the same transport, with TLS between it and the
     * response codec; a failed handshake is recorded on the connection for the exchange to name.
     */
    private SocketConnectorHandler tlsConnector(UpstreamTls tls, UpstreamGroupConfig.Server server) {
        FilterChainBuilder chain = FilterChainBuilder.stateless()
                .add(new TransportFilter())
                .add(tls.filterFor(server.host(), server.port(), (connection, cause) -> UpstreamConnection.of(connection).tlsFailed(cause),
                        tlsObserver))
                .add(new UpstreamFilter());
        return TCPNIOConnectorHandler.builder(transport).processor(chain.build()).build();
    }

    public void start() throws IOException {
        transport.start();
        for (UpstreamGroup group : groups.values()) {
            UpstreamGroupConfig.HealthCheck check = group.settings().healthCheck();
            if (check != null) {
                group.servers().forEach(server -> healthChecks.watch(server, check));
            }
        }
    }

    public UpstreamGroup groupFor(Route route) {
        return groups.get(route.group());
    }

    public Collection<UpstreamGroup> groups() {
        return List.copyOf(groups.values());
    }

    /** Every server's pool. */
    public List<UpstreamPool> pools() {
        List<UpstreamPool> pools = new ArrayList<>();
        groups.values().forEach(g -> g.servers().forEach(s -> pools.add(s.pool())));
        return pools;
    }

    /** The most upstream connections all pools together may open. */
    public long maxConnections() {
        long total = 0;
        for (UpstreamGroup group : groups.values()) {
            total += (long) group.servers().size() * group.settings().pool().maxConnections();
        }
        return total;
    }

    public void stop() {
        healthChecks.stop();
        pools().forEach(UpstreamPool::close);
        try {
            transport.shutdownNow();
        } catch (IOException e) {
            // Closing sockets on the way out; nothing useful is left to do with the error.
        }
    }
}
