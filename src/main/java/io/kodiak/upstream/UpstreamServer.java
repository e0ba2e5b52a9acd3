package io.kodiak.upstream;

import io.kodiak.config.UpstreamGroupConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * One server of an upstream group: its connection pool, its health as seen by passive
 * observation and by active checks, and its counts. Exchanges report each attempt's outcome
 * here ({@link #begin}, then {@link #succeeded} or {@link #failed}, then {@link #end}).
 */
public final class UpstreamServer {
    private static final Logger LOG = LoggerFactory.getLogger(UpstreamServer.class);

    /** What /upstreams and the status command show. */
    public enum Status { UP, DOWN, EJECTED, TRIAL }

    private final String group;
    private final int index;
    private final UpstreamGroupConfig.Server settings;
    private final UpstreamPool pool;
    private final PassiveHealth passive;
    private final ActiveHealth active;
    private final AtomicInteger inFlight;
    private final LongAdder requests;
    private final LongAdder failures;
    /** host:port, made once: every exchange names the server it tried in the access log. */
    private final String authority;
    /** Smooth weighted round-robin's running weight; guarded by the group's balancer. */
    int currentWeight;
    /**
     * What passive health reads the time from (ms): the wall clock, or a test's own (see {@link #useClock}).
     * Read only while the server is ejected or on trial, and for each attempt's start.
     */
    private volatile LongSupplier clock = System::currentTimeMillis;

    UpstreamServer(String group, int index, UpstreamGroupConfig.Server settings, UpstreamPool pool,
                   UpstreamGroupConfig.Passive passive, UpstreamGroupConfig.HealthCheck check) {
        this(group, index, settings, pool, new PassiveHealth(passive), activeHealth(check),
                new AtomicInteger(), new LongAdder(), new LongAdder());
    }

    private static ActiveHealth activeHealth(UpstreamGroupConfig.HealthCheck check) {
        return check == null ? new ActiveHealth(1, Integer.MAX_VALUE) : new ActiveHealth(check.rise(), check.fall());
    }

    private UpstreamServer(String group, int index, UpstreamGroupConfig.Server settings, UpstreamPool pool,
                           PassiveHealth passive, ActiveHealth active, AtomicInteger inFlight, LongAdder requests,
                           LongAdder failures) {
        this.group = group;
        this.index = index;
        this.settings = settings;
        this.authority = settings.authority();
        this.pool = pool;
        this.passive = passive;
        this.active = active;
        this.inFlight = inFlight;
        this.requests = requests;
        this.failures = failures;
    }

    /**
     * The same server in a group that a reload changed (another weight, another server beside
     * it): its health as observed so far, its counts and requests in flight carry over, so that a
     * server that is down stays out of rotation and its metrics continue. Each part of its health
     * carries over by its own rules: passive health as it is when {@code passiveRules} are the
     * ones it was observed by, else anew; the active checks' verdict (UP or DOWN) always, under
     * {@code check}'s rise and fall (a server found DOWN stays out until it passes the new checks;
     * without checks now, it is UP).
     */
    UpstreamServer successor(int index, UpstreamGroupConfig.Server settings, UpstreamPool pool,
                             UpstreamGroupConfig.Passive passiveRules, boolean samePassive,
                             UpstreamGroupConfig.HealthCheck check, boolean sameCheck) {
        ActiveHealth nextActive = sameCheck ? active : check == null ? activeHealth(null) : active.under(check.rise(), check.fall());
        UpstreamServer successor = new UpstreamServer(group, index, settings, pool,
                samePassive ? passive : new PassiveHealth(passiveRules), nextActive, inFlight, requests, failures);
        successor.clock = clock;
        return successor;
    }

    /**
     * Tests (through {@link UpstreamGroup#useClock}): passive health's fail-timeout and ejections run on
     * {@code millis}. Every time passive health compares (failures, ejection ends, trials, the attempts' start)
     * comes from this one clock.
     */
    void useClock(LongSupplier millis) {
        clock = millis;
    }

    /** Now, by passive health's clock (ms): when an attempt to this server begins. */
    public long now() {
        return clock.getAsLong();
    }

    public UpstreamPool pool() {
        return pool;
    }

    /** host:port, as logged and tagged in metrics. */
    public String authority() {
        return authority;
    }

    public String host() {
        return settings.host();
    }

    /** The name TLS sends and verifies: the DNS name of an address found through one, else the host. */
    String tlsHost() {
        return settings.tlsHost();
    }

    /** The DNS name this server's address was found under (resolve, discovery), or null. */
    public String dnsName() {
        return settings.name();
    }

    public int port() {
        return settings.port();
    }

    public String url() {
        return settings.url();
    }

    public int weight() {
        return settings.weight();
    }

    public boolean backup() {
        return settings.backup();
    }

    int index() {
        return index;
    }

    /** Up by both measures: active checks pass (or none run) and passive health admits a request now. */
    boolean isAvailable() {
        // A healthy server needs no clock: the common case reads none.
        return active.isUp() && (passive.state() == PassiveHealth.State.HEALTHY || passive.admits(now()));
    }

    /** Claims a request's turn on an available server: the trial after an ejection goes to one request only. */
    boolean claim() {
        return passive.state() == PassiveHealth.State.HEALTHY || passive.claim(now());
    }

    public Status status() {
        if (!active.isUp()) {
            return Status.DOWN;
        }
        return switch (passive.state()) {
            case HEALTHY -> Status.UP;
            case EJECTED -> Status.EJECTED;
            case TRIAL -> Status.TRIAL;
        };
    }

    /** An attempt goes to this server. */
    public void begin() {
        inFlight.incrementAndGet();
        requests.increment();
    }

    /** The attempt is over, whatever its outcome. */
    public void end() {
        inFlight.decrementAndGet();
    }

    /** The server answered with a response that is not a failure; {@code startedMillis}: when that attempt began. */
    public void succeeded(long startedMillis) {
        if (passive.success(startedMillis)) {
            LOG.info("upstream {} server {} is back after its trial request", group, authority());
        }
    }

    /** Connect failure, reset, timeout, or a 502/503/504 of the server's own, for an attempt begun at {@code startedMillis}. */
    public void failed(String why, long startedMillis) {
        failures.increment();
        if (passive.failure(now(), startedMillis)) {
            LOG.warn("upstream {} server {} ejected for {} ms after {}", group, authority(), passive.ejectionMillis(), why);
        }
    }

    void checked(boolean passed, String detail) {
        ActiveHealth.State changed = active.record(passed);
        if (changed == ActiveHealth.State.DOWN) {
            LOG.warn("upstream {} server {} is DOWN: health check failed ({})", group, authority(), detail);
        } else if (changed == ActiveHealth.State.UP) {
            passive.reset();
            LOG.info("upstream {} server {} is UP: health checks pass", group, authority());
        }
    }

    public int inFlight() {
        return inFlight.get();
    }

    public long requests() {
        return requests.sum();
    }

    public long failures() {
        return failures.sum();
    }

    public long ejections() {
        return passive.ejections();
    }
}
