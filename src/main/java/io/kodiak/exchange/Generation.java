package io.kodiak.exchange;

import io.kodiak.config.ProxyConfig;
import io.kodiak.routing.Route;
import io.kodiak.routing.Router;
import io.kodiak.upstream.UpstreamGroup;
import io.kodiak.upstream.UpstreamGroups;

import java.time.Instant;

/**
 * One loaded configuration as exchanges use it: routes, upstream groups, timeouts and limits.
 * An exchange takes the generation in service when its request head arrives and keeps it to its
 * end, so a reload changes what exchanges starting after it do and nothing of those in flight.
 * {@code number}: 1 for the configuration Kodiak started with, one more per applied reload.
 */
public record Generation(long number, Instant loadedAt, ProxyConfig config, Router router, UpstreamGroups upstreams) {

    public static Generation of(long number, ProxyConfig config, UpstreamGroups upstreams) {
        return new Generation(number, Instant.now(), config, new Router(config.routes()), upstreams);
    }

    UpstreamGroup groupFor(Route route) {
        return upstreams.groupFor(route);
    }

    /** Longest a transfer in progress may make no progress (the listener's idle-timeout). */
    long stallTimeoutMillis() {
        return config.listener().idleTimeout().toMillis();
    }

    /** proxy.listener.max-body-size; -1 when unlimited. */
    long maxBodySize() {
        return config.listener().maxBodySize();
    }

    boolean exceedsBodyLimit(long bytes) {
        long max = maxBodySize();
        return max >= 0 && bytes > max;
    }
}
