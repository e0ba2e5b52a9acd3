package io.kodiak.exchange;

import io.kodiak.config.ProxyConfig;
import io.kodiak.limits.LimitSettings;
import io.kodiak.limits.Limits;
import io.kodiak.log.AccessLogFormat;
import io.kodiak.routing.HeaderVariable;
import io.kodiak.routing.Route;
import io.kodiak.routing.Router;
import io.kodiak.upstream.UpstreamGroup;
import io.kodiak.upstream.UpstreamGroups;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * One loaded configuration as exchanges use it: routes, upstream groups, limits, timeouts and
 * the access log's format. An exchange takes the generation in service when its request head
 * arrives and keeps it to its end, so a reload changes what exchanges starting after it do and
 * nothing of those in flight. {@code number}: 1 for the configuration Kodiak started with, one
 * more per applied reload. {@code needsHost}: some route, rule or the log format looks at the
 * request's host name, so it is read from the head (otherwise it never is). {@code
 * needsRequestId}: a rule or the log format writes request ids, so every request takes one when
 * admitted (otherwise only a request that gets a 5xx answer does, when it gets it).
 */
public record Generation(long number, Instant loadedAt, ProxyConfig config, Router router, UpstreamGroups upstreams,
                         Limits limits, boolean needsHost, boolean needsRequestId) {

    public static Generation first(ProxyConfig config, UpstreamGroups upstreams) {
        return of(1, config, upstreams, Limits.NONE);
    }

    /** The generation after {@code this} for {@code config}; limiters whose settings stay keep their state. */
    public Generation next(ProxyConfig config, UpstreamGroups upstreams) {
        return of(number + 1, config, upstreams, limits);
    }

    /**
     * The same generation with the groups its DNS names resolve to now (resolve, discovery): its
     * number, routes, limiters and load time stay, as the configuration did not change.
     */
    public Generation withUpstreams(UpstreamGroups found) {
        return new Generation(number, loadedAt, config, router, found, limits, needsHost, needsRequestId);
    }

    private static Generation of(long number, ProxyConfig config, UpstreamGroups upstreams, Limits previous) {
        Router router = new Router(config.routes());
        boolean needsHost = router.usesHosts() || config.accessLog().uses(AccessLogFormat.Variable.HOST)
                || config.routes().stream().anyMatch(route -> rulesUse(route, HeaderVariable.HOST));
        boolean needsRequestId = config.accessLog().uses(AccessLogFormat.Variable.REQUEST_ID)
                || config.routes().stream().anyMatch(route -> rulesUse(route, HeaderVariable.REQUEST_ID));
        return new Generation(number, Instant.now(), config, router, upstreams,
                Limits.of(config.limits(), routeLimits(config), previous), needsHost, needsRequestId);
    }

    private static Map<String, LimitSettings> routeLimits(ProxyConfig config) {
        Map<String, LimitSettings> byRoute = new HashMap<>();
        for (Route route : config.routes()) {
            byRoute.put(route.name(), route.limits());
        }
        return byRoute;
    }

    private static boolean rulesUse(Route route, HeaderVariable variable) {
        return route.requestHeaders().uses(variable) || route.responseHeaders().uses(variable);
    }

    UpstreamGroup groupFor(Route route) {
        return upstreams.groupFor(route);
    }

    AccessLogFormat accessLog() {
        return config.accessLog();
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
