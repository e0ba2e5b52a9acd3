package io.kodiak.upstream;

import io.kodiak.config.ProxyConfig;
import io.kodiak.routing.Route;
import io.kodiak.routing.UpstreamTarget;
import org.glassfish.grizzly.filterchain.FilterChainBuilder;
import org.glassfish.grizzly.filterchain.TransportFilter;
import org.glassfish.grizzly.memory.MemoryManager;
import org.glassfish.grizzly.nio.transport.TCPNIOTransport;
import org.glassfish.grizzly.nio.transport.TCPNIOTransportBuilder;
import org.glassfish.grizzly.strategies.SameThreadIOStrategy;
import org.glassfish.grizzly.utils.DelayedExecutor;

import java.io.IOException;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The upstream side: one client transport (its own selectors, so upstream I/O never queues
 * behind client I/O) whose chain is TransportFilter, then Kodiak's response codec (UpstreamFilter), and one
 * pool per upstream host:port named by the routes.
 */
public final class UpstreamClient {
    private static final int WRITE_QUEUE_LIMIT = 256 * 1024;

    private final TCPNIOTransport transport;
    private final Map<String, UpstreamPool> poolsByOrigin = new LinkedHashMap<>();

    public UpstreamClient(ProxyConfig config, DelayedExecutor timers, MemoryManager memory) {
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

        ProxyConfig.Upstream settings = config.upstream();
        for (Route route : config.routes()) {
            UpstreamTarget target = route.target();
            poolsByOrigin.computeIfAbsent(target.originKey(), k -> new UpstreamPool(target, transport, timers,
                    settings.maxConnections(), settings.connectTimeout().toMillis(),
                    settings.idleTimeout().toMillis(), settings.persistentConnections()));
        }
    }

    public void start() throws IOException {
        transport.start();
    }

    public UpstreamPool poolFor(UpstreamTarget target) {
        return poolsByOrigin.get(target.originKey());
    }

    public Collection<UpstreamPool> pools() {
        return List.copyOf(poolsByOrigin.values());
    }

    public void stop() {
        poolsByOrigin.values().forEach(UpstreamPool::close);
        try {
            transport.shutdownNow();
        } catch (IOException e) {
            // Closing sockets on the way out; nothing useful is left to do with the error.
        }
    }
}
