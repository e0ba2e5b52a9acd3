package io.kodiak;

import io.kodiak.config.ProxyConfig;
import io.kodiak.exchange.Admission;
import io.kodiak.exchange.Drain;
import io.kodiak.exchange.ExchangeObserver;
import io.kodiak.exchange.ForwardingServices;
import io.kodiak.exchange.Generation;
import io.kodiak.listener.ConnectionBudget;
import io.kodiak.listener.ProxyListener;
import io.kodiak.tls.PemMaterial;
import io.kodiak.tls.TlsObserver;
import io.kodiak.upstream.UpstreamGroups;
import io.kodiak.upstream.UpstreamClient;
import org.glassfish.grizzly.memory.MemoryManager;
import org.glassfish.grizzly.utils.DelayedExecutor;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The proxy as one object: listener, routing, upstream client and pools, wired from a validated
 * config, and replaced piece by piece by {@link #reload}.
 */
public final class Kodiak {
    /**
     * Resolution of every timer (response timeouts, idle connections, pool waits). Each tick scans
     * every registered deadline, so a finer tick costs CPU per connection; a quarter second is finer
     * than any timeout worth configuring.
     */
    private static final long TIMER_TICK_MILLIS = 250;

    private volatile ProxyConfig config;
    private final Drain drain = new Drain();
    private final ExecutorService timerThread;
    private final DelayedExecutor timers;
    private final UpstreamClient upstreams;
    private final ForwardingServices services;
    private final ProxyListener listener;
    /** Guarded by this: a reload and a stop never overlap, and no reload follows a stop. */
    private boolean stopped;

    public Kodiak(ProxyConfig config) {
        this(config, ExchangeObserver.NONE);
    }

    /** {@code observer} sees every finished exchange and error (metrics). */
    public Kodiak(ProxyConfig config, ExchangeObserver observer) {
        this(config, observer, TlsObserver.NONE);
    }

    /** {@code tlsObserver} hears every TLS handshake on either side (metrics). */
    public Kodiak(ProxyConfig config, ExchangeObserver observer, TlsObserver tlsObserver) {
        this.config = config;
        this.timerThread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "kodiak-timers");
            t.setDaemon(true);
            return t;
        });
        this.timers = new DelayedExecutor(timerThread, TIMER_TICK_MILLIS, TimeUnit.MILLISECONDS);
        MemoryManager memory = MemoryManagers.of(config.buffers().memoryManager());
        this.upstreams = new UpstreamClient(config, timers, memory, tlsObserver);
        this.services = new ForwardingServices(Generation.of(1, config, upstreams.current()), timers, drain, observer);
        int maxClients = ConnectionBudget.clientLimit(config.listener().maxConnections(), ConnectionBudget.openFileLimit(),
                upstreams.maxConnections());
        this.listener = new ProxyListener(config.listener(), config.endpoints(), maxClients, new Admission(services),
                drain, timers, memory, tlsObserver);
    }

    public void start() throws IOException {
        timers.start();
        upstreams.start();
        try {
            listener.start();
        } catch (IOException e) {
            upstreams.stop();
            timers.destroy();
            timerThread.shutdownNow();
            throw e;
        }
    }

    /** A reload applied: the generation now in service, and the addresses it started and stopped listening on. */
    public record Reloaded(Generation generation, List<String> addressesAdded, List<String> addressesRemoved) {
    }

    /**
     * Puts {@code next} in service without dropping anything: exchanges whose request arrives from
     * now on use its routes, groups, timeouts and limits; those in flight finish under theirs.
     * Unchanged upstream groups and pools are kept with their connections; a removed server's
     * pool drains; a new address is bound before a removed one stops accepting, whose open
     * connections finish. Nothing is applied when a certificate cannot be read or an address
     * cannot be bound: the configuration in service stays. The settings of {@link #restartOnly}
     * are the transport's and keep their values until a restart.
     */
    public synchronized Reloaded reload(ProxyConfig next) throws ReloadRefusedException {
        if (stopped) {
            throw new ReloadRefusedException("Kodiak is stopping");
        }
        UpstreamGroups groups;
        try {
            groups = upstreams.prepare(next);
        } catch (PemMaterial.Unusable e) {
            throw new ReloadRefusedException(e.getMessage(), e);
        }
        ProxyListener.Plan plan;
        try {
            plan = listener.prepare(next.listener(), next.endpoints());
            listener.bind(plan);
        } catch (PemMaterial.Unusable e) {
            upstreams.abandon(groups);
            throw new ReloadRefusedException(e.getMessage(), e);
        } catch (IOException e) {
            upstreams.abandon(groups);
            throw new ReloadRefusedException("cannot listen on " + e.getMessage(), e);
        }
        Generation generation = Generation.of(services.generation().number() + 1, next, groups);
        services.install(generation);
        upstreams.commit(groups);
        listener.commit(plan);
        config = next;
        return new Reloaded(generation, plan.addedAddresses(), plan.removedAddresses());
    }

    /** The keys whose change {@code next} makes that only a restart applies (the transports' threads and limits). */
    public List<String> restartOnly(ProxyConfig next) {
        ProxyConfig.Listener was = config.listener();
        ProxyConfig.Listener now = next.listener();
        List<String> keys = new ArrayList<>();
        if (was.selectorThreads() != now.selectorThreads()) {
            keys.add("proxy.listener.selector-threads");
        }
        if (was.workerThreads() != now.workerThreads()) {
            keys.add("proxy.listener.worker-threads");
        }
        if (was.ioStrategy() != now.ioStrategy()) {
            keys.add("proxy.listener.io-strategy");
        }
        if (was.maxConnections() != now.maxConnections()) {
            keys.add("proxy.listener.max-connections");
        }
        if (!config.buffers().equals(next.buffers())) {
            keys.add("proxy.buffers.memory-manager");
        }
        return keys;
    }

    /** The configuration generation in service. */
    public Generation generation() {
        return services.generation();
    }

    /** Drains (up to the configured grace period) and releases everything. Idempotent. */
    public void stop() {
        synchronized (this) {
            if (stopped) {
                return;
            }
            stopped = true;
        }
        stopNow();
    }

    private void stopNow() {
        listener.stop(config.shutdownGracePeriod().toMillis());
        upstreams.stop();
        timers.destroy();
        timerThread.shutdownNow();
    }

    public int port() {
        return listener.port();
    }

    public ProxyConfig config() {
        return config;
    }

    public ProxyListener listener() {
        return listener;
    }

    public Drain drain() {
        return drain;
    }

    public UpstreamClient upstreams() {
        return upstreams;
    }

    public ForwardingServices services() {
        return services;
    }
}
