package io.kodiak.upstream;

import io.kodiak.config.ProxyConfig;
import io.kodiak.routing.Route;
import io.kodiak.routing.UpstreamTarget;
import io.kodiak.transport.ProxyTransport;
import org.glassfish.grizzly.ConnectorHandler;
import org.glassfish.grizzly.filterchain.FilterChain;
import org.glassfish.grizzly.filterchain.FilterChainBuilder;
import org.glassfish.grizzly.filterchain.TransportFilter;
import org.glassfish.grizzly.nio.transport.TCPNIOConnectorHandler;
import org.glassfish.grizzly.utils.DelayedExecutor;

import java.net.SocketAddress;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The upstream side: connections on the shared transport with their own chain (TransportFilter,
 * HttpClientFilter, UpstreamFilter), and one pool per upstream host:port named by the routes.
 */
public final class UpstreamClient {
    /** Large enough for any sane upstream response header; beyond it the upstream is answered with 502. */
    private static final int MAX_RESPONSE_HEADER_SIZE = 64 * 1024;

    private final Map<String, UpstreamPool> poolsByOrigin = new LinkedHashMap<>();

    public UpstreamClient(ProxyConfig config, ProxyTransport shared, DelayedExecutor timers) {
        FilterChain chain = FilterChainBuilder.stateless()
                .add(new TransportFilter())
                .add(new UpstreamCodecFilter(MAX_RESPONSE_HEADER_SIZE))
                .add(new UpstreamFilter())
                .build();
        // Upstream connections share the listener's selector threads but not its chain.
        ConnectorHandler<SocketAddress> connector = TCPNIOConnectorHandler.builder(shared.grizzly())
                .processor(chain)
                .build();

        ProxyConfig.Upstream settings = config.upstream();
        for (Route route : config.routes()) {
            UpstreamTarget target = route.target();
            poolsByOrigin.computeIfAbsent(target.originKey(), k -> new UpstreamPool(target, connector, timers,
                    settings.maxConnections(), settings.connectTimeout().toMillis(),
                    settings.idleTimeout().toMillis(), settings.persistentConnections()));
        }
    }

    public UpstreamPool poolFor(UpstreamTarget target) {
        return poolsByOrigin.get(target.originKey());
    }

    public Collection<UpstreamPool> pools() {
        return List.copyOf(poolsByOrigin.values());
    }

    /** Closes idle pooled connections and fails waiters; the shared transport closes the rest. */
    public void stop() {
        poolsByOrigin.values().forEach(UpstreamPool::close);
    }
}
