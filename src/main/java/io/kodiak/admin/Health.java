package io.kodiak.admin;

import io.kodiak.Kodiak;

import java.lang.management.ManagementFactory;

/**
 * What /health reports: STARTING until the proxy listens, UP while it serves, DRAINING once a
 * stop began. Only UP is healthy, so a load balancer stops sending traffic as soon as a drain starts.
 */
final class Health {
    enum State { STARTING, UP, DRAINING }

    private final Kodiak kodiak;
    private final String version;
    private volatile boolean listening;

    Health(Kodiak kodiak, String version) {
        this.kodiak = kodiak;
        this.version = version;
    }

    void listening() {
        listening = true;
    }

    State state() {
        if (kodiak.drain().isDraining()) {
            return State.DRAINING;
        }
        return listening ? State.UP : State.STARTING;
    }

    boolean healthy() {
        return state() == State.UP;
    }

    String json() {
        State state = state();
        io.kodiak.exchange.Generation generation = kodiak.generation();
        long uptimeMillis = ManagementFactory.getRuntimeMXBean().getUptime();
        // Every value is a number or a fixed token except the version, which comes from our own pom.
        return "{\"status\":\"" + state + "\",\"version\":\"" + version + "\",\"uptime_seconds\":"
                + uptimeMillis / 1000 + ",\"in_flight\":" + kodiak.drain().inFlight()
                + ",\"generation\":" + generation.number() + ",\"loaded_at\":\"" + generation.loadedAt() + "\"}";
    }
}
