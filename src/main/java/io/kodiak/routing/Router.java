package io.kodiak.routing;

import java.util.Comparator;
import java.util.List;

/** Longest-prefix route matching. Routes are few, so a scan of prefixes sorted longest-first is enough. */
public final class Router {
    private final Route[] byLongestPrefix;

    public Router(List<Route> routes) {
        this.byLongestPrefix = routes.stream()
                .sorted(Comparator.comparingInt((Route r) -> r.prefix().length()).reversed())
                .toArray(Route[]::new);
    }

    /** The route for this request path, or null when none matches. */
    public Route match(String path) {
        for (Route route : byLongestPrefix) {
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
        return List.of(byLongestPrefix);
    }
}
