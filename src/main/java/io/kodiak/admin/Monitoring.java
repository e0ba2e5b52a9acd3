package io.kodiak.admin;

import io.kodiak.Kodiak;
import io.kodiak.config.ProxyConfig;
import io.kodiak.exchange.ExchangeObserver;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.io.IOException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The admin side of a Kodiak process: metrics and the admin listener (/health, /metrics,
 * /upstreams, /status, POST /reload), from
 * {@code proxy.admin}. When the admin listener is disabled nothing would read the metrics, so
 * none are recorded (the observer is {@link ExchangeObserver#NONE}).
 * <p>
 * Order of use: {@link #observer()} for the Kodiak constructor, {@link #start(Kodiak)} before the
 * proxy listens (an admin port that cannot be bound fails start-up before any traffic is
 * accepted), {@link #proxyListening()} once it does, {@link #stop()} after the proxy drained, so
 * /health answers 503 throughout the drain.
 */
public final class Monitoring {
    /** How often latency samples move from the recording threads' rings into the timers. */
    private static final long LATENCY_DRAIN_MILLIS = 50;
    private volatile ProxyConfig.Admin settings;
    private final PrometheusMeterRegistry registry;
    /** Null when the admin listener is disabled: then nothing is recorded. */
    private final ProxyMetrics metrics;
    private ScheduledExecutorService latencyDrain;
    private JvmGcMetrics gcMetrics;
    private Health health;
    private UpstreamsHandler upstreams;
    private StatusHandler status;
    private ReloadHandler reload;
    /** Replaced by a reload that moves the admin listener (the reload thread), read by stop (the shutdown hook). */
    private volatile AdminServer server;
    private UpstreamMeters upstreamMeters;
    private ResolverMeters resolverMeters;
    /** The proxy the meters read (set by start). */
    private Kodiak kodiak;
    private Counter reloadsApplied;
    private Counter reloadsRefused;

    public Monitoring(ProxyConfig config) {
        this.settings = config.admin();
        if (settings.enabled()) {
            registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            metrics = new ProxyMetrics(registry, config.routes());
        } else {
            registry = null;
            metrics = null;
        }
    }

    public boolean enabled() {
        return settings.enabled();
    }

    /**
     * The admin listener as it runs: enabled or not as at the start (a restart-only key), at the
     * address of the last reload that moved it.
     */
    public ProxyConfig.Admin running() {
        return settings;
    }

    public ExchangeObserver observer() {
        return metrics == null ? ExchangeObserver.NONE : metrics;
    }

    public io.kodiak.h2.Http2Observer http2Observer() {
        return metrics == null ? io.kodiak.h2.Http2Observer.NONE : metrics;
    }

    public io.kodiak.tls.TlsObserver tlsObserver() {
        return metrics == null ? io.kodiak.tls.TlsObserver.NONE : metrics;
    }

    /** Registers the gauges that read {@code kodiak} and binds the admin listener; POST /reload reloads nothing. */
    public void start(Kodiak kodiak) throws IOException {
        start(kodiak, ReloadService.NONE);
    }

    /** Registers the gauges that read {@code kodiak} and binds the admin listener; POST /reload asks {@code reloads}. */
    public void start(Kodiak kodiak, ReloadService reloads) throws IOException {
        if (!enabled()) {
            return;
        }
        ProxyGauges.register(registry, kodiak);
        upstreamMeters = new UpstreamMeters(registry);
        upstreamMeters.update(kodiak.upstreams().current());
        this.kodiak = kodiak;
        resolverMeters = new ResolverMeters(registry);
        resolverMeters.update(kodiak.discovery().names());
        reloadsApplied = reloads("applied");
        reloadsRefused = reloads("refused");
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        // Two open files per exchange against a per-process limit: the ceiling operators hit first.
        new FileDescriptorMetrics().bindTo(registry);
        gcMetrics = new JvmGcMetrics();
        gcMetrics.bindTo(registry);

        health = new Health(kodiak, Version.current());
        upstreams = new UpstreamsHandler(kodiak.upstreams(), kodiak.discovery());
        status = new StatusHandler(health, kodiak, registry);
        reload = new ReloadHandler(new ReloadGuard(() -> kodiak.config().admin().token()), reloads);
        server = adminServer(settings);
        try {
            server.start();
        } catch (IOException e) {
            server = null;
            gcMetrics.close();
            throw e;
        }
        // Keeps each thread's latency ring short; a scrape drains it too, so this only bounds memory.
        latencyDrain = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "kodiak-metrics");
            thread.setDaemon(true);
            return thread;
        });
        latencyDrain.scheduleWithFixedDelay(metrics::drainLatencies, LATENCY_DRAIN_MILLIS, LATENCY_DRAIN_MILLIS,
                TimeUnit.MILLISECONDS);
    }

    private AdminServer adminServer(ProxyConfig.Admin at) {
        return new AdminServer(at, health, this::exposition, upstreams, status, reload, Version.current());
    }

    private Counter reloads(String result) {
        return Counter.builder("kodiak.config.reloads")
                .description("Configuration reloads by result: applied, or refused (the configuration in service stayed)")
                .tag("result", result)
                .register(registry);
    }

    /**
     * A reload's admin side, prepared before the proxy's: when proxy.admin's address changes, the
     * admin listener on the new address, already listening (a load balancer's health checks move
     * to it without a gap); null when nothing is to change.
     */
    public static final class AdminMove {
        private final ProxyConfig.Admin settings;
        private final AdminServer server;

        private AdminMove(ProxyConfig.Admin settings, AdminServer server) {
            this.settings = settings;
            this.server = server;
        }
    }

    /** Binds the admin listener's new address when {@code next} moves it; fails (naming nothing: the caller names proxy.admin) when it cannot. */
    public AdminMove prepareMove(ProxyConfig next) throws IOException {
        ProxyConfig.Admin to = next.admin();
        if (server == null || !to.enabled() || (to.host().equals(settings.host()) && to.port() == settings.port())) {
            return null;
        }
        AdminServer moved = adminServer(to);
        moved.start();
        return new AdminMove(to, moved);
    }

    /** A reload did not go ahead after {@link #prepareMove}: the new address is released. */
    public void abandonMove(AdminMove move) {
        if (move != null) {
            move.server.stop();
        }
    }

    /** Counts a refused reload (once, whatever step refused it). */
    public void reloadRefused() {
        if (reloadsRefused != null) {
            reloadsRefused.increment();
        }
    }

    /** After a reload was applied: the routes' and groups' meters follow it, and a moved admin listener takes over. */
    public void reloaded(Kodiak kodiak, AdminMove move) {
        if (!enabled()) {
            return;
        }
        metrics.routes(kodiak.config().routes());
        upstreamMeters.update(kodiak.upstreams().current());
        resolverMeters.update(kodiak.discovery().names());
        reloadsApplied.increment();
        if (move != null) {
            server.stopAfterServing();
            server = move.server;
            settings = move.settings;
        }
    }

    private String exposition() {
        metrics.drainLatencies();
        // DNS answers change the groups between reloads: their series follow at each scrape.
        upstreamMeters.update(kodiak.upstreams().current());
        resolverMeters.update(kodiak.discovery().names());
        return registry.scrape();
    }

    /** From now on /health answers UP (until a drain starts). */
    public void proxyListening() {
        if (health != null) {
            health.listening();
        }
    }

    /** The admin listener's bound port, or -1 when it is disabled. */
    public int port() {
        return server == null ? -1 : server.port();
    }

    public void stop() {
        if (latencyDrain != null) {
            latencyDrain.shutdownNow();
            latencyDrain = null;
        }
        if (server != null) {
            server.stop();
            server = null;
        }
        if (gcMetrics != null) {
            gcMetrics.close();
            gcMetrics = null;
        }
        if (registry != null) {
            registry.close();
        }
    }
}
