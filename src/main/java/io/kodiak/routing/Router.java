package io.kodiak.routing;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Virtual hosts, then longest-prefix matching. The request's host picks the routes first: those
 * naming it exactly, else those of the most specific wildcard matching it (the longest suffix),
 * else the routes without a host (nginx's default server); then the longest prefix among those
 * wins. A host that found its routes does not fall back to the host-less ones when no prefix
 * matches (as an nginx server block does not): the answer is 404. Routes are few, so each set is a
 * scan of prefixes sorted longest-first; with no host named by any route, the host is never looked at.
 */
public final class Router {
    private final List<Route> routes;
    private final Map<String, Route[]> exact;
    /** Wildcard suffixes (".example.org"), longest first, each with its routes. */
    private final String[] wildcardSuffixes;
    private final Route[][] wildcardRoutes;
    private final Route[] anyHost;

    public Router(List<Route> routes) {
        this.routes = List.copyOf(routes);
        Map<String, List<Route>> byName = new LinkedHashMap<>();
        Map<String, List<Route>> bySuffix = new HashMap<>();
        List<Route> hostless = new ArrayList<>();
        for (Route route : routes) {
            if (route.hosts().isEmpty()) {
                hostless.add(route);
            }
            for (HostPattern host : route.hosts()) {
                if (host.isWildcard()) {
                    bySuffix.computeIfAbsent(host.suffix(), s -> new ArrayList<>()).add(route);
                } else {
                    byName.computeIfAbsent(host.name(), s -> new ArrayList<>()).add(route);
                }
            }
        }
        this.exact = new HashMap<>();
        byName.forEach((name, list) -> exact.put(name, longestFirst(list)));
        this.wildcardSuffixes = bySuffix.keySet().stream()
                .sorted(Comparator.comparingInt(String::length).reversed().thenComparing(Comparator.naturalOrder()))
                .toArray(String[]::new);
        this.wildcardRoutes = new Route[wildcardSuffixes.length][];
        for (int i = 0; i < wildcardSuffixes.length; i++) {
            wildcardRoutes[i] = longestFirst(bySuffix.get(wildcardSuffixes[i]));
        }
        this.anyHost = longestFirst(hostless);
    }

    private static Route[] longestFirst(List<Route> routes) {
        return routes.stream()
                .sorted(Comparator.comparingInt((Route r) -> r.prefix().length()).reversed())
                .toArray(Route[]::new);
    }

    /** True when some route names a host: only then is the request's host worth reading. */
    public boolean usesHosts() {
        return !exact.isEmpty() || wildcardSuffixes.length > 0;
    }

    /** The route for {@code path} on {@code host} (a {@link HostName}, null when the request named none), or null. */
    public Route match(String host, String path) {
        return longestPrefix(routesFor(host), path);
    }

    /** The routes a request for {@code host} is matched against (empty when none serve it). */
    Route[] routesFor(String host) {
        if (host == null || !usesHosts()) {
            return anyHost;
        }
        Route[] named = exact.get(host);
        if (named != null) {
            return named;
        }
        for (int i = 0; i < wildcardSuffixes.length; i++) {
            String suffix = wildcardSuffixes[i];
            if (host.length() > suffix.length() && host.endsWith(suffix)) {
                return wildcardRoutes[i];
            }
        }
        return anyHost;
    }

    private static Route longestPrefix(Route[] candidates, String path) {
        for (Route route : candidates) {
            if (path.startsWith(route.prefix())) {
                return route;
            }
        }
        return null;
    }

    /**
     * True when a segment of the raw request path is "." or "..", also percent-encoded or followed
     * by ";parameters" (which Tomcat strips before resolving dot-segments). The prefix match and the
     * rewrite work on the raw path, and the upstream resolves such segments after them.
     */
    public static boolean hasDotSegment(String path) {
        int start = 0;
        int parameters = -1;
        while (start <= path.length()) {
            int end = path.indexOf('/', start);
            if (end < 0) {
                end = path.length();
            }
            // Searched again only once passed, so a long path is scanned once, not once per segment.
            if (parameters < start && parameters != Integer.MAX_VALUE) {
                parameters = path.indexOf(';', start);
                if (parameters < 0) {
                    parameters = Integer.MAX_VALUE;
                }
            }
            if (isDots(path, start, Math.min(parameters, end))) {
                return true;
            }
            start = end + 1;
        }
        return false;
    }

    private static boolean isDots(String path, int from, int to) {
        int dots = 0;
        int i = from;
        while (i < to && dots <= 2) {
            if (path.charAt(i) == '.') {
                i++;
            } else if (path.regionMatches(true, i, "%2e", 0, 3)) {
                i += 3;
            } else {
                return false;
            }
            dots++;
        }
        return i >= to && (dots == 1 || dots == 2);
    }

    public List<Route> routes() {
        return routes;
    }
}
