package io.kodiak;

import io.kodiak.config.ProxyConfig;
import io.kodiak.exchange.Admission;
import io.kodiak.exchange.Drain;
import io.kodiak.exchange.ExchangeObserver;
import io.kodiak.exchange.ForwardingServices;
import io.kodiak.listener.ConnectionBudget;
import io.kodiak.listener.ProxyListener;
import io.kodiak.routing.Router;
import io.kodiak.tls.TlsObserver;
import io.kodiak.upstream.UpstreamClient;
import org.glassfish.grizzly.memory.MemoryManager;
import org.glassfish.grizzly.utils.DelayedExecutor;

import java.io.IOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/** The proxy as one object: listener, routing, upstream client and pools, wired from a validated config. */
public final class Kodiak {
    /**
     * Resolution of every timer (response timeouts, idle connections, pool waits). Each tick scans
     * every registered deadline, so a finer tick costs CPU per connection; a quarter second is finer
     * than any timeout worth configuring.
     */
    private static final long TIMER_TICK_MILLIS = 250;

    private final ProxyConfig config;
    private final Drain drain = new Drain();
    private final ExecutorService timerThread;
    private final DelayedExecutor timers;
    private final UpstreamClient upstreams;
    private final ForwardingServices services;
    private final ProxyListener listener;
    private volatile boolean stopped;

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
        this.services = new ForwardingServices(new Router(config.routes()), upstreams, timers,
                config.upstream().responseTimeout().toMillis(), config.listener().idleTimeout().toMillis(),
                config.listener().maxBodySize(), drain, observer);
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

    /** Drains (up to the configured grace period) and releases everything. Idempotent. */
    public synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
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
