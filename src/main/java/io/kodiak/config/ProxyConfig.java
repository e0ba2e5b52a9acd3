package io.kodiak.config;

import io.kodiak.routing.Route;
import io.kodiak.tls.TlsSettings;
import io.kodiak.tls.UpstreamTlsSettings;

import java.time.Duration;
import java.util.List;

/**
 * The validated, immutable configuration the proxy runs with. {@code groups}: every upstream
 * group the routes use, the named ones from proxy.upstreams and one implicit group per route
 * origin given as host:port, in the order first named.
 */
public record ProxyConfig(Listener listener, List<Route> routes, Upstream upstream, Buffers buffers, Admin admin,
                          Duration shutdownGracePeriod, List<UpstreamGroupConfig> groups, List<String> warnings) {

    /**
     * Client-facing side. {@code maxBodySize} is -1 when unlimited; thread counts are resolved (never 0);
     * {@code maxConnections} 0 is resolved when the proxy starts, from the open-file limit (ConnectionBudget);
     * {@code tls} is null for plain HTTP.
     */
    public record Listener(String host, int port, int selectorThreads, int workerThreads, IoStrategyName ioStrategy,
                           boolean persistentConnections, Duration idleTimeout, int maxRequestsPerConnection,
                           int maxHeaderSize, long maxBodySize, int maxConnections, TlsSettings tls) {
    }

    /** {@code tls}: how https:// servers are spoken to. */
    public record Upstream(boolean persistentConnections, int maxConnections, Duration connectTimeout,
                           Duration responseTimeout, Duration idleTimeout, UpstreamTlsSettings tls) {
    }

    public record Buffers(MemoryManagerName memoryManager) {
    }

    public record Admin(boolean enabled, String host, int port) {
    }
}
