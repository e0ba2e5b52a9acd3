package io.kodiak;

import io.kodiak.config.ProxyConfig;
import io.kodiak.discovery.Discovery;
import io.kodiak.discovery.DnsjavaLookups;
import io.kodiak.exchange.Admission;
import io.kodiak.exchange.Drain;
import io.kodiak.exchange.ExchangeObserver;
import io.kodiak.exchange.ForwardingServices;
import io.kodiak.exchange.UpstreamProtocol;
import io.kodiak.h1.Http1Upstream;
import io.kodiak.upstream.ExchangeDeadlines;
import io.kodiak.exchange.Generation;
import io.kodiak.listener.ConnectionBudget;
import io.kodiak.listener.ProxyListener;
import io.kodiak.loop.EventLoops;
import io.kodiak.tls.PemMaterial;
import io.kodiak.h2.Http2Observer;
import io.kodiak.h2.upstream.Http2Upstream;
import io.kodiak.tls.TlsObserver;
import io.kodiak.tracing.Tracing;
import io.kodiak.upstream.UpstreamGroups;
import io.kodiak.upstream.UpstreamClient;
import io.kodiak.transport.WriteQueues;
import org.glassfish.grizzly.memory.MemoryManager;
import org.glassfish.grizzly.utils.DelayedExecutor;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
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

    private final Drain drain = new Drain();
    private final ExecutorService timerThread;
    private final DelayedExecutor timers;
    private final UpstreamClient upstreams;
    /** The names looked up while Kodiak runs (resolve = true, discovery), and their answers. */
    private final Discovery discovery;
    private final ForwardingServices services;
    /** Streams to h2 upstream servers (groups with protocol = "h2"). */
    private final Http2Upstream http2Upstream;
    private final ProxyListener listener;
    private final MemoryManager memory;
    /** The one transport and the event loops that own its connections, client and upstream alike. */
    private final EventLoops loops;
    /** proxy.tracing as started (restart only); null when off. */
    private final Tracing tracing;
    private final ProxyConfig.Tracing tracingSettings;
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
        this(config, observer, tlsObserver, Http2Observer.NONE);
    }

    /** {@code http2Observer} hears HTTP/2 streams and GOAWAYs (metrics). */
    public Kodiak(ProxyConfig config, ExchangeObserver observer, TlsObserver tlsObserver, Http2Observer http2Observer) {
        this(config, observer, tlsObserver, http2Observer, Http1Upstream::new);
    }

    /**
     * {@code upstreamProtocol} makes, from the exchanges' deadline clock and write queues, how
     * requests travel upstream: HTTP/1.1 ({@link Http1Upstream}); the exchange's own tests put
     * fake streams there.
     */
    public Kodiak(ProxyConfig config, ExchangeObserver observer, TlsObserver tlsObserver,
                  BiFunction<ExchangeDeadlines, WriteQueues, UpstreamProtocol> upstreamProtocol) {
        this(config, observer, tlsObserver, Http2Observer.NONE, upstreamProtocol);
    }

    private Kodiak(ProxyConfig config, ExchangeObserver observer, TlsObserver tlsObserver, Http2Observer http2Observer,
                   BiFunction<ExchangeDeadlines, WriteQueues, UpstreamProtocol> upstreamProtocol) {
        this.timerThread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "kodiak-timers");
            t.setDaemon(true);
            return t;
        });
        this.timers = new DelayedExecutor(timerThread, TIMER_TICK_MILLIS, TimeUnit.MILLISECONDS);
        this.memory = MemoryManagers.of(config.buffers().memoryManager(), config.listener().ioStrategy());
        WriteQueues writeQueues = new WriteQueues(config.buffers().maxQueuedPerConnection(),
                config.buffers().maxQueuedResolved());
        this.loops = new EventLoops(config.listener(), memory, writeQueues, ProxyListener.BACKLOG);
        this.discovery = new Discovery(config.resolver(), new DnsjavaLookups(config.resolver()), this::rediscover);
        this.upstreams = new UpstreamClient(config, timers, loops, tlsObserver, discovery);
        ExchangeDeadlines deadlines = new ExchangeDeadlines(timers);
        this.http2Upstream = new Http2Upstream(deadlines, writeQueues, loops, timers, http2Observer);
        this.tracingSettings = config.tracing();
        this.tracing = Tracing.start(tracingSettings);
        this.services = new ForwardingServices(Generation.first(config, upstreams.current()),
                upstreamProtocol.apply(deadlines, writeQueues), http2Upstream, drain, observer, writeQueues, loops, tracing);
        int maxClients = ConnectionBudget.clientLimit(config.listener().maxConnections(), ConnectionBudget.openFileLimit(),
                upstreams.maxConnections(), ConnectionBudget.filesPerClient(config.endpoints()));
        this.listener = new ProxyListener(config.listener(), config.endpoints(), maxClients, new Admission(services),
                drain, timers, loops, tlsObserver, http2Observer);
    }

    public void start() throws IOException {
        timers.start();
        try {
            loops.start();
            // Each name asked once, briefly, so that groups have their addresses when the first
            // request comes; a name that does not answer leaves its group unavailable, never the start failed.
            discovery.watch(config());
            rediscover();
            upstreams.start();
            listener.start();
        } catch (IOException e) {
            discovery.stop();
            upstreams.stop();
            loops.transport().shutdownNow();
            timers.destroy();
            timerThread.shutdownNow();
            stopTracing();
            throw e;
        }
    }

    /**
     * A reload applied: the generation now in service, the addresses it started and stopped
     * listening on, and what it could not apply (said in the log and to bin/proxy.sh).
     */
    public record Reloaded(Generation generation, List<String> addressesAdded, List<String> addressesRemoved,
                           List<String> warnings) {
    }

    /**
     * Puts {@code next} in service without dropping anything: exchanges whose request arrives from
     * now on use its routes, groups, timeouts and limits; those in flight finish under theirs.
     * Unchanged upstream groups and pools are kept with their connections; a removed server's
     * pool drains; a new address is bound before a removed one stops accepting, whose open
     * connections finish. Nothing is applied when a certificate cannot be read or an address
     * cannot be bound: the configuration in service stays, and whatever was prepared is released.
     * The transports' thread counts, I/O strategy and connection limit keep their values until a
     * restart (see ConfigChanges#restartOnly in the daemon).
     */
    public synchronized Reloaded reload(ProxyConfig next) throws ReloadRefusedException {
        if (stopped) {
            throw new ReloadRefusedException("Kodiak is stopping");
        }
        UpstreamGroups groups = null;
        ProxyListener.Plan plan = null;
        // The names the new configuration adds, asked before its groups are built.
        discovery.watch(next);
        try {
            groups = upstreams.prepare(next);
            plan = listener.prepare(next.listener(), next.endpoints());
            listener.bind(plan);
        } catch (PemMaterial.Unusable e) {
            release(groups, plan);
            discovery.retain(config());
            throw new ReloadRefusedException(e.getMessage(), e);
        } catch (IOException e) {
            release(groups, plan);
            discovery.retain(config());
            throw new ReloadRefusedException("cannot listen on " + e.getMessage(), e);
        } catch (RuntimeException e) {
            release(groups, plan);
            discovery.retain(config());
            throw e;
        }
        // From here on nothing can be refused: the steps only swap references and release what
        // the new generation no longer uses.
        Generation generation = services.generation().next(next, groups);
        services.install(generation);
        upstreams.commit(groups);
        discovery.retain(next);
        listener.commit(plan);
        List<String> warnings = new ArrayList<>();
        int clientLimit = ConnectionBudget.clientLimit(next.listener().maxConnections(), ConnectionBudget.openFileLimit(),
                groups.maxConnections(), ConnectionBudget.filesPerClient(next.endpoints()));
        // More upstream connections than at start could now run the process out of descriptors
        // before the client limit is reached; fewer are no risk.
        if (clientLimit < listener.maxConnections()) {
            warnings.add("the client connection limit in use (" + listener.maxConnections() + ") is above what the open-file"
                    + " limit leaves beside the upstream pools now (" + clientLimit + "); a restart applies " + clientLimit);
        }
        return new Reloaded(generation, plan.addedAddresses(), plan.removedAddresses(), warnings);
    }

    /**
     * Applies what the watched names resolve to now to the groups in service, as a reload that
     * changes nothing else would: groups whose addresses stay are kept; in the others, servers
     * that stay keep their pools and health, new ones start, removed ones drain. The generation
     * keeps its number (the configuration did not change). Runs on the discovery thread, or the
     * starting thread; the lock keeps it apart from a reload.
     */
    private synchronized void rediscover() {
        if (stopped) {
            return;
        }
        UpstreamGroups current = upstreams.current();
        UpstreamGroups found;
        try {
            found = upstreams.prepare(config());
        } catch (PemMaterial.Unusable e) {
            // A TLS file rewritten since the last reload: the groups in service stay until one.
            org.slf4j.LoggerFactory.getLogger(Kodiak.class).warn("new DNS answers not applied: {}", e.getMessage());
            return;
        }
        if (sameGroups(current, found)) {
            upstreams.abandon(found);
            return;
        }
        services.install(services.generation().withUpstreams(found));
        upstreams.commit(found);
    }

    private static boolean sameGroups(UpstreamGroups a, UpstreamGroups b) {
        List<io.kodiak.upstream.UpstreamGroup> x = new ArrayList<>(a.groups());
        List<io.kodiak.upstream.UpstreamGroup> y = new ArrayList<>(b.groups());
        if (x.size() != y.size()) {
            return false;
        }
        for (int i = 0; i < x.size(); i++) {
            if (x.get(i) != y.get(i)) {
                return false;
            }
        }
        return true;
    }

    private void release(UpstreamGroups groups, ProxyListener.Plan plan) {
        if (plan != null) {
            listener.abandon(plan);
        }
        if (groups != null) {
            upstreams.abandon(groups);
        }
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
        // Outside the lock: the drain takes up to the grace period, and a reload asked meanwhile
        // must not wait for it (it finds the proxy stopped and is refused).
        discovery.stop();
        listener.stop(config().shutdownGracePeriod().toMillis());
        upstreams.stop();
        timers.destroy();
        timerThread.shutdownNow();
        // After the drain: every exchange has ended its span, and the last ones leave now.
        stopTracing();
    }

    private void stopTracing() {
        if (tracing != null) {
            tracing.shutdown();
        }
    }

    /** proxy.tracing's settings as started: a reload does not change them (restart only). */
    public ProxyConfig.Tracing tracingSettings() {
        return tracingSettings;
    }

    /** proxy.tracing as it runs (a reload does not change it); null when off. */
    public Tracing tracing() {
        return tracing;
    }

    public int port() {
        return listener.port();
    }

    /** The configuration in service (the generation's). */
    public ProxyConfig config() {
        return services.generation().config();
    }

    /** What both transports read into (buffers.memory-manager). */
    public MemoryManager memoryManager() {
        return memory;
    }

    public ProxyListener listener() {
        return listener;
    }

    public Drain drain() {
        return drain;
    }

    public EventLoops loops() {
        return loops;
    }

    public UpstreamClient upstreams() {
        return upstreams;
    }

    /** The names resolved while Kodiak runs and their answers, for /upstreams, status and metrics. */
    public Discovery discovery() {
        return discovery;
    }

    /** Streams to h2 upstream servers: their pools, for the status page and tests. */
    public Http2Upstream http2Upstream() {
        return http2Upstream;
    }

    public ForwardingServices services() {
        return services;
    }
}
