package io.kodiak.upstream;

import io.kodiak.config.ProxyConfig;
import io.kodiak.config.ProxyProtocolVersion;
import io.kodiak.config.UpstreamGroupConfig;
import io.kodiak.proxyprotocol.ProxyHeaderSender;
import io.kodiak.loop.EventLoops;
import io.kodiak.routing.Route;
import io.kodiak.routing.UpstreamTarget;
import io.kodiak.tls.PemMaterial;
import io.kodiak.tls.TlsObserver;
import io.kodiak.tls.UpstreamTls;
import io.kodiak.tls.UpstreamTlsSettings;
import org.glassfish.grizzly.SocketConnectorHandler;
import org.glassfish.grizzly.filterchain.FilterChainBuilder;
import org.glassfish.grizzly.nio.transport.TCPNIOConnectorHandler;
import org.glassfish.grizzly.nio.transport.TCPNIOTransport;
import org.glassfish.grizzly.utils.DelayedExecutor;

import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The upstream side: connections opened on the proxy's one transport ({@link EventLoops}), each on
 * the selector of the loop that asks for it, with a chain of its own: TransportFilter, TLS where
 * the server is https://, then Kodiak's response codec (UpstreamFilter); the upstream groups the routes name, one connection pool per server; and the
 * active health checks of the groups that have them.
 *
 * <p>A reload builds the next generation's groups ({@link #prepare}) beside the current ones,
 * reusing every group whose settings did not change (servers, balancer state, health, pools and
 * their idle connections) and, in groups that changed, every pool whose server and pool settings
 * did not; {@link #commit} then starts checking the new servers and retires what the new groups no
 * longer use (a removed server's pool drains: its busy connections finish their exchanges).
 */
public final class UpstreamClient {
    private static final Logger LOG = LoggerFactory.getLogger(UpstreamClient.class);

    private final TCPNIOTransport transport;
    private final EventLoops loops;
    /** Connections to http:// servers: the transport, then the response codec. */
    private final SocketConnectorHandler plainConnector;
    /** Connections to http:// servers spoken to in h2 (h2c): the transport, then the h2 client connection. */
    private final SocketConnectorHandler plainH2Connector;
    private final DelayedExecutor timers;
    private final HealthChecks healthChecks;
    private final FreshConnects freshConnects;
    private final TlsObserver tlsObserver;
    /** Each group's servers as they are now: its names replaced by their addresses. */
    private final ServerDirectory directory;
    /** The groups in service; each generation's also holds its TLS contexts (see {@link #build}). */
    private volatile UpstreamGroups current;
    private boolean started;

    public UpstreamClient(ProxyConfig config, DelayedExecutor timers, EventLoops loops, TlsObserver tlsObserver) {
        this(config, timers, loops, tlsObserver, ServerDirectory.STATIC);
    }

    public UpstreamClient(ProxyConfig config, DelayedExecutor timers, EventLoops loops, TlsObserver tlsObserver,
                          ServerDirectory directory) {
        this.tlsObserver = tlsObserver;
        this.directory = directory;
        this.timers = timers;
        this.loops = loops;
        this.transport = loops.transport();
        plainConnector = TCPNIOConnectorHandler.builder(transport).processor(FilterChainBuilder.stateless()
                .add(new UpstreamTransportFilter())
                .add(new UpstreamFilter())
                .build()).build();
        plainH2Connector = TCPNIOConnectorHandler.builder(transport).processor(FilterChainBuilder.stateless()
                .add(new UpstreamTransportFilter())
                .add(new io.kodiak.h2.upstream.Http2UpstreamFilter())
                .build()).build();
        healthChecks = new HealthChecks(transport, timers);
        freshConnects = new FreshConnects(timers);
        try {
            current = build(config, UpstreamGroups.NONE);
        } catch (PemMaterial.Unusable e) {
            // Checked by the configuration loader moments ago: a file changed since.
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /**
     * The groups {@code config} names, built beside the current ones and not yet in service:
     * {@link #commit} puts them in service, {@link #abandon} drops them. Fails, naming the key,
     * when a TLS file that changed since it was read cannot be used.
     */
    public synchronized UpstreamGroups prepare(ProxyConfig config) throws PemMaterial.Unusable {
        return build(config, current);
    }

    /**
     * One TLS context per distinct setting (proxy.upstream.tls, and each group's own), shared by
     * the servers that use it, so TLS sessions are resumed across a group's servers; carried over
     * from {@code previous} unless its files were rewritten, which makes the groups using it change.
     */
    private UpstreamGroups build(ProxyConfig config, UpstreamGroups previous) throws PemMaterial.Unusable {
        // Each group as it serves now; a group whose names' answers did not change compares equal
        // to the one in service, and is kept as a reload keeps an unchanged group.
        List<ServerDirectory.Found> found = new ArrayList<>();
        for (UpstreamGroupConfig configured : config.groups()) {
            found.add(directory.servers(configured));
        }
        Map<UpstreamTlsSettings, UpstreamTls> contexts = new HashMap<>();
        for (ServerDirectory.Found group : found) {
            UpstreamGroupConfig settings = group.settings();
            UpstreamTlsSettings tls = settings.pool().tls();
            if (contexts.containsKey(tls) || settings.servers().stream().noneMatch(UpstreamGroupConfig.Server::tls)) {
                continue;
            }
            UpstreamTls known = previous.tlsContexts().get(tls);
            contexts.put(tls, known != null && !known.filesChanged() ? known : upstreamTls(tls,
                    tls.equals(config.upstream().tls()) ? "proxy.upstream.tls" : "proxy.upstreams." + settings.name() + ".tls"));
        }
        Map<String, UpstreamGroup> kept = new LinkedHashMap<>();
        for (ServerDirectory.Found group : found) {
            UpstreamGroupConfig settings = group.settings();
            UpstreamGroup old = previous.named(settings.name());
            if (old != null && old.settings().equals(settings) && sameTls(old, contexts)
                    && java.util.Objects.equals(old.unavailable(), settings.servers().isEmpty() ? unavailable(group) : null)) {
                kept.put(settings.name(), old);
            }
        }
        // Pools of the groups that change, by what makes a pool: a server's in another group or
        // generation can serve here when its address, TLS and pool settings are the same.
        Map<PoolKey, Deque<UpstreamPool>> reusable = new HashMap<>();
        for (UpstreamGroup old : previous.groups()) {
            if (kept.get(old.name()) != old) {
                for (UpstreamServer server : old.servers()) {
                    reusable.computeIfAbsent(poolKey(old.settings(), server.host(), server.port(), server.tlsHost(),
                            server.pool().tls()), k -> new ArrayDeque<>()).add(server.pool());
                }
            }
        }
        Map<String, UpstreamGroup> groups = new LinkedHashMap<>();
        for (ServerDirectory.Found now : found) {
            UpstreamGroupConfig settings = now.settings();
            UpstreamGroup group = kept.get(settings.name());
            if (group == null) {
                group = newGroup(settings, unavailable(now), previous.named(settings.name()), contexts, reusable);
            }
            groups.put(settings.name(), group);
        }
        return new UpstreamGroups(groups, contexts);
    }

    private static String unavailable(ServerDirectory.Found group) {
        return group.settings().servers().isEmpty() ? (group.unavailable() != null ? group.unavailable() : "no server") : null;
    }

    private static boolean sameTls(UpstreamGroup old, Map<UpstreamTlsSettings, UpstreamTls> contexts) {
        for (UpstreamServer server : old.servers()) {
            if (server.pool().tls() != null && server.pool().tls() != contexts.get(old.settings().pool().tls())) {
                return false;
            }
        }
        return true;
    }

    private UpstreamGroup newGroup(UpstreamGroupConfig settings, String unavailable, UpstreamGroup predecessor,
                                   Map<UpstreamTlsSettings, UpstreamTls> contexts, Map<PoolKey, Deque<UpstreamPool>> reusable) {
        ProxyConfig.Upstream pool = settings.pool();
        // Health observed so far carries over, each part by its own rules (UpstreamServer.successor).
        boolean samePassive = predecessor != null && predecessor.settings().passive().equals(settings.passive());
        boolean sameCheck = predecessor != null
                && java.util.Objects.equals(predecessor.settings().healthCheck(), settings.healthCheck());
        List<UpstreamServer> servers = new ArrayList<>();
        for (UpstreamGroupConfig.Server server : settings.servers()) {
            UpstreamTls tls = server.tls() ? contexts.get(pool.tls()) : null;
            Deque<UpstreamPool> candidates = reusable.get(poolKey(settings, server.host(), server.port(), server.tlsHost(), tls));
            UpstreamPool connections = candidates == null || candidates.isEmpty()
                    ? newPool(server, pool, tls) : candidates.poll();
            UpstreamServer before = predecessor != null ? predecessor.server(server.authority()) : null;
            servers.add(before != null ? before.successor(servers.size(), server, connections, settings.passive(), samePassive,
                    settings.healthCheck(), sameCheck)
                    : new UpstreamServer(settings.name(), servers.size(), server, connections, settings.passive(),
                    settings.healthCheck()));
        }
        return new UpstreamGroup(settings, servers, unavailable);
    }

    private UpstreamPool newPool(UpstreamGroupConfig.Server server, ProxyConfig.Upstream pool, UpstreamTls tls) {
        ProxyProtocolVersion header = pool.proxyProtocol();
        SocketConnectorHandler connector = tls != null ? tlsConnector(tls, server, header)
                : header == ProxyProtocolVersion.OFF ? plainConnector : plainConnector(header);
        // h2: the pool's own connections speak h2; health checks still speak HTTP/1.1.
        SocketConnectorHandler shared = pool.protocol() != io.kodiak.config.UpstreamProtocolName.H2 ? connector
                : tls != null ? tlsH2Connector(tls, server) : plainH2Connector;
        return new UpstreamPool(new UpstreamTarget(server.host(), server.port(), ""), shared, connector, tls, loops, timers, freshConnects,
                pool.maxConnections(), pool.connectTimeout().toMillis(), pool.idleTimeout().toMillis(),
                pool.keepsConnections(), pool.keepsPrivateConnections());
    }

    /** What makes two pools interchangeable: the same server, spoken to the same way, with the same limits. */
    private record PoolKey(String host, int port, String tlsHost, UpstreamTls tls, int maxConnections, java.time.Duration connectTimeout,
                           java.time.Duration idleTimeout, boolean persistent, io.kodiak.config.UpstreamProtocolName protocol,
                           ProxyProtocolVersion proxyProtocol) {
    }

    private static PoolKey poolKey(UpstreamGroupConfig settings, String host, int port, String tlsHost, UpstreamTls tls) {
        ProxyConfig.Upstream pool = settings.pool();
        // tlsHost: an address found under another name is verified against that name, on a pool of its own.
        return new PoolKey(host, port, tls != null ? tlsHost : null, tls, pool.maxConnections(), pool.connectTimeout(), pool.idleTimeout(),
                pool.persistentConnections(), pool.protocol(), pool.proxyProtocol());
    }

    /**
     * Puts {@code next} (from {@link #prepare}) in service: exchanges that start from now on use it
     * (the caller publishes it with the routes). New servers are checked from now on; servers and
     * pools {@code next} no longer has stop being checked and drain.
     */
    public synchronized void commit(UpstreamGroups next) {
        UpstreamGroups previous = current;
        current = next;
        Set<UpstreamServer> before = identitySet(previous.servers());
        Set<UpstreamServer> after = identitySet(next.servers());
        if (started) {
            for (UpstreamGroup group : next.groups()) {
                UpstreamGroupConfig.HealthCheck check = group.settings().healthCheck();
                if (check != null) {
                    group.servers().stream().filter(server -> !before.contains(server))
                            .forEach(server -> healthChecks.watch(server, check));
                }
            }
        }
        for (UpstreamServer server : before) {
            if (!after.contains(server)) {
                healthChecks.unwatch(server);
            }
        }
        Set<UpstreamPool> inUse = identitySet(next.pools());
        int kept = 0;
        int retired = 0;
        for (UpstreamPool pool : previous.pools()) {
            if (inUse.contains(pool)) {
                kept++;
            } else {
                pool.close();
                retired++;
            }
        }
        LOG.info("upstream pools: {} kept with their connections, {} new, {} retired (draining their busy connections)",
                kept, inUse.size() - kept, retired);
    }

    /** Drops {@code next} (from {@link #prepare}) when the reload it was for is refused. */
    public synchronized void abandon(UpstreamGroups next) {
        Set<UpstreamPool> inUse = identitySet(current.pools());
        for (UpstreamPool pool : next.pools()) {
            if (!inUse.contains(pool)) {
                pool.close();
            }
        }
    }

    private static <T> Set<T> identitySet(Collection<T> items) {
        Set<T> set = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        set.addAll(items);
        return set;
    }

    /** {@code key}: where the settings come from, for the message when a file changed since it was checked. */
    private static UpstreamTls upstreamTls(UpstreamTlsSettings settings, String key) throws PemMaterial.Unusable {
        try {
            return UpstreamTls.create(settings);
        } catch (PemMaterial.Unusable e) {
            throw new PemMaterial.Unusable(key + ": " + e.getMessage());
        }
    }

    /**
     * Connections to an https:// server: the same transport, with TLS between it and the
     * response codec; a failed handshake is recorded on the connection for the exchange to name.
     */
    private SocketConnectorHandler tlsConnector(UpstreamTls tls, UpstreamGroupConfig.Server server, ProxyProtocolVersion header) {
        FilterChainBuilder chain = FilterChainBuilder.stateless()
                .add(new UpstreamTransportFilter());
        if (header != ProxyProtocolVersion.OFF) {
            // Below TLS: the PROXY header precedes the handshake.
            chain.add(new ProxyHeaderSender(header));
        }
        chain.add(tls.filterFor(server.tlsHost(), server.port(), (connection, cause) -> UpstreamConnection.of(connection).tlsFailed(cause),
                        tlsObserver))
                .add(new UpstreamFilter());
        return TCPNIOConnectorHandler.builder(transport).processor(chain.build()).build();
    }

    /** Connections to an http:// server that open with a PROXY header ({@code proxy.upstream.proxy-protocol}). */
    private SocketConnectorHandler plainConnector(ProxyProtocolVersion header) {
        return TCPNIOConnectorHandler.builder(transport).processor(FilterChainBuilder.stateless()
                .add(new UpstreamTransportFilter())
                .add(new ProxyHeaderSender(header))
                .add(new UpstreamFilter())
                .build()).build();
    }

    /** As {@link #tlsConnector}, offering h2 by ALPN, with the h2 client connection on top. */
    private SocketConnectorHandler tlsH2Connector(UpstreamTls tls, UpstreamGroupConfig.Server server) {
        FilterChainBuilder chain = FilterChainBuilder.stateless()
                .add(new UpstreamTransportFilter())
                .add(tls.filterFor(server.tlsHost(), server.port(), "h2",
                        io.kodiak.h2.upstream.Http2UpstreamFilter::tlsFailed, tlsObserver))
                .add(new io.kodiak.h2.upstream.Http2UpstreamFilter());
        return TCPNIOConnectorHandler.builder(transport).processor(chain.build()).build();
    }

    /** Starts the health checks; the transport has started ({@link EventLoops#start}). */
    public synchronized void start() throws IOException {
        started = true;
        for (UpstreamGroup group : current.groups()) {
            UpstreamGroupConfig.HealthCheck check = group.settings().healthCheck();
            if (check != null) {
                group.servers().forEach(server -> healthChecks.watch(server, check));
            }
        }
    }

    /** The groups in service now. */
    public UpstreamGroups current() {
        return current;
    }

    public UpstreamGroup groupFor(Route route) {
        return current.groupFor(route);
    }

    public Collection<UpstreamGroup> groups() {
        return current.groups();
    }

    /** Every server's pool. */
    public List<UpstreamPool> pools() {
        return current.pools();
    }

    /** The most upstream connections all pools together may open. */
    public long maxConnections() {
        return current.maxConnections();
    }

    public synchronized void stop() {
        healthChecks.stop();
        pools().forEach(UpstreamPool::close);
    }
}
