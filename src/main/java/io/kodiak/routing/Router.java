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

    public List<Route> routes() {
        return List.of(byLongestPrefix);
    }
}
