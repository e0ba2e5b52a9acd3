package io.kodiak.config;

import io.kodiak.limits.LimitSettings;
import io.kodiak.log.AccessLogFormat;
import io.kodiak.routing.Route;
import io.kodiak.tls.TlsSettings;
import io.kodiak.tls.UpstreamTlsSettings;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The validated, immutable configuration the proxy runs with. {@code groups}: every upstream
 * group the routes use, the named ones from proxy.upstreams and one implicit group per route
 * origin given as host:port, in the order first named. {@code settings}: every key under
 * {@code proxy} with its effective value as HOCON text, for telling which keys a reload changes.
 * {@code limits}: the request limit every request passes first (proxy.limits, OFF by default);
 * {@code accessLog}: the access log's line (proxy.access-log.format); {@code resolver}: how the
 * names of servers with resolve = true and of discovery groups are looked up (proxy.resolver).
 * {@code tracing}: proxy.tracing.
 */
public record ProxyConfig(Listener listener, List<Endpoint> moreListeners, List<Route> routes, Upstream upstream,
                          Buffers buffers, Admin admin, Duration shutdownGracePeriod, List<UpstreamGroupConfig> groups,
                          LimitSettings limits, AccessLogFormat accessLog, List<String> warnings, Map<String, String> settings,
                          Resolver resolver, Tracing tracing) {

    /** Every address Kodiak serves on: proxy.listener's first, then proxy.listeners' in order. */
    public List<Endpoint> endpoints() {
        return endpoints(listener, moreListeners);
    }

    static List<Endpoint> endpoints(Listener listener, List<Endpoint> moreListeners) {
        List<Endpoint> all = new ArrayList<>(1 + moreListeners.size());
        all.add(new Endpoint("proxy.listener", listener.host(), listener.port(), listener.tls(), listener.proxyProtocol(),
                listener.proxyProtocolTrusted()));
        all.addAll(moreListeners);
        return all;
    }

    /**
     * One listening address with its own TLS (null: plain HTTP); every other setting is proxy.listener's.
     * {@code key}: where it is configured, for messages. {@code proxyProtocolTrusted}: with
     * {@code proxyProtocol}, the peers whose connections are taken (empty: every peer).
     */
    public record Endpoint(String key, String host, int port, TlsSettings tls, boolean proxyProtocol,
                           List<AddressBlock> proxyProtocolTrusted) {
        public String scheme() {
            return tls == null ? "http" : "https";
        }
    }

    /**
     * Client-facing side. {@code maxBodySize} is -1 when unlimited; thread counts are resolved (never 0);
     * {@code maxConnections} 0 is resolved when the proxy starts, from the open-file limit (ConnectionBudget);
     * {@code tls} is null for plain HTTP; {@code http2} null when HTTP/2 is off; {@code proxyProtocol}: each
     * connection opens with a PROXY protocol header; {@code proxyProtocolTrusted}: the peers allowed
     * to send one (empty: every peer), proxy.listeners entries' default too.
     */
    public record Listener(String host, int port, int selectorThreads, int workerThreads, IoStrategyName ioStrategy,
                           boolean persistentConnections, Duration idleTimeout, int maxRequestsPerConnection,
                           int maxHeaderSize, long maxBodySize, int maxConnections, ClientHalfClose clientHalfClose,
                           TlsSettings tls, Http2 http2, boolean proxyProtocol, List<AddressBlock> proxyProtocolTrusted) {
    }

    /** proxy.listener.http2-settings: what each HTTP/2 connection announces (its max header list: max-header-size). */
    public record Http2(int maxConcurrentStreams, int initialWindowSize, int maxFrameSize) {
    }

    /**
     * {@code tls}: how https:// servers are spoken to; {@code protocol}: HTTP/1.1 or h2;
     * {@code proxyProtocol}: the PROXY header each new connection opens with (off: none).
     */
    public record Upstream(boolean persistentConnections, int maxConnections, Duration connectTimeout,
                           Duration responseTimeout, Duration idleTimeout, UpstreamTlsSettings tls,
                           UpstreamProtocolName protocol, ProxyProtocolVersion proxyProtocol) {
        /** The same settings spoken with {@code other}. */
        public Upstream withProtocol(UpstreamProtocolName other) {
            return new Upstream(persistentConnections, maxConnections, connectTimeout, responseTimeout, idleTimeout, tls, other,
                    proxyProtocol);
        }

        /**
         * Whether a connection is kept for the next exchange, whoever its client: not when it
         * opened with a PROXY header, which named one client connection ({@link #keepsPrivateConnections}).
         */
        public boolean keepsConnections() {
            return persistentConnections && proxyProtocol == ProxyProtocolVersion.OFF;
        }

        /**
         * Whether a connection that opened with a PROXY header is kept for the next exchange of the
         * client connection it named, and of no other (as HAProxy keeps such connections private
         * to their session).
         */
        public boolean keepsPrivateConnections() {
            return persistentConnections && proxyProtocol != ProxyProtocolVersion.OFF;
        }
    }

    /**
     * {@code maxQueuedPerConnection}: bytes one connection's write queue may hold before the reads
     * feeding it pause; {@code maxQueued}: bytes all connections may hold together before each has
     * room only while it holds nothing, 0 for a quarter of the maximum heap.
     */
    public record Buffers(MemoryManagerName memoryManager, int maxQueuedPerConnection, long maxQueued) {
        /** {@link #maxQueued()} resolved against the heap this JVM may grow to. */
        public long maxQueuedResolved() {
            return maxQueued > 0 ? maxQueued : Math.max(maxQueuedPerConnection, Runtime.getRuntime().maxMemory() / 4);
        }
    }

    /**
     * {@code token}: what a state-changing request (POST /reload) from another host must carry
     * (proxy.admin.token-file); null when none is set, and then only this host may change state.
     */
    public record Admin(boolean enabled, String host, int port, AdminToken token) {
        public Admin(boolean enabled, String host, int port) {
            this(enabled, host, port, null);
        }
    }

    /**
     * proxy.resolver: the DNS servers to ask (empty: those of the system's resolv.conf), the
     * longest an answer is used whatever its TTL, and the longest one query may take.
     */
    public record Resolver(List<java.net.InetSocketAddress> servers, Duration valid, Duration timeout) {
    }

    /**
     * proxy.tracing. {@code sampler}: the share of new traces sampled, 0 to 1; {@code endpoint}:
     * the collector's OTLP/HTTP traces URL; {@code maxQueuedSpans}: ended spans waiting for export
     * before new ones are dropped. Restart only: a reload keeps the running tracing.
     */
    public record Tracing(boolean enabled, double sampler, String serviceName, java.net.URI endpoint, int maxQueuedSpans) {
        /** Off, as reference.conf's defaults say (for code that builds a configuration by hand). */
        public static final Tracing OFF = new Tracing(false, 0.01, "kodiak",
                java.net.URI.create("http://127.0.0.1:4318/v1/traces"), 2048);
    }
}
