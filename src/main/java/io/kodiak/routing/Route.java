package io.kodiak.routing;

import io.kodiak.limits.LimitSettings;

import java.util.List;

/**
 * Requests for one of {@code hosts} (any host when empty) whose path starts with {@code prefix}
 * go to {@code target}, prefix replaced by the target's path unless a {@code rewrites} rule is
 * found in the path. {@code upgrade}: requests asking to switch protocols (WebSocket) are relayed;
 * when false the upgrade is stripped and the request served as an ordinary one. {@code group}:
 * the upstream group that serves the route (a named one, or the implicit group of the target's
 * host:port). {@code requestHeaders} and {@code responseHeaders}: the header rules of each
 * direction; {@code limits}: the route's own request limit (OFF when none).
 */
public record Route(List<HostPattern> hosts, String prefix, UpstreamTarget target, boolean preserveHost,
                    String upstreamUrl, boolean upgrade, String group, HeaderRules requestHeaders,
                    HeaderRules responseHeaders, Rewrites rewrites, LimitSettings limits, String name) {

    public Route {
        hosts = List.copyOf(hosts);
    }

    /** {@code name} made from the hosts and prefix (see {@link #name()}): computed once, asked on every request. */
    public Route(List<HostPattern> hosts, String prefix, UpstreamTarget target, boolean preserveHost,
                 String upstreamUrl, boolean upgrade, String group, HeaderRules requestHeaders,
                 HeaderRules responseHeaders, Rewrites rewrites, LimitSettings limits) {
        this(hosts, prefix, target, preserveHost, upstreamUrl, upgrade, group, requestHeaders, responseHeaders,
                rewrites, limits, nameOf(hosts, prefix));
    }

    public Route(String prefix, UpstreamTarget target, boolean preserveHost, String upstreamUrl) {
        this(List.of(), prefix, target, preserveHost, upstreamUrl, true, target.originKey(), HeaderRules.NONE,
                HeaderRules.NONE, Rewrites.NONE, LimitSettings.OFF);
    }

    /**
     * How logs, metrics, limits and reload reports name the route: its prefix, after its hosts
     * when it has any ("api.example.com/v1/"; several joined by commas).
     */
    private static String nameOf(List<HostPattern> hosts, String prefix) {
        if (hosts.isEmpty()) {
            return prefix;
        }
        StringBuilder name = new StringBuilder();
        for (HostPattern host : hosts) {
            name.append(name.isEmpty() ? "" : ",").append(host.name());
        }
        return name.append(prefix).toString();
    }

    /** The upstream request path by the prefix mapping: the matched prefix swapped for the target's base path, never empty. */
    public String rewrite(String requestPath) {
        if (prefix.equals(target.basePath()) && !requestPath.isEmpty() && requestPath.charAt(0) == '/') {
            // "/" to "/", "/api/" to "/api/": the path goes as it came (no string built per request).
            return requestPath;
        }
        String rest = requestPath.substring(prefix.length());
        String path = target.basePath() + rest;
        if (path.isEmpty()) {
            return "/";
        }
        return path.charAt(0) == '/' ? path : "/" + path;
    }

    /**
     * True when the upstream path may hold a "." or ".." segment the client's path had not: a
     * rewrite joins groups freely, and a prefix without a trailing slash joins the base path's last
     * segment to the client's ("/api" + "../admin" from "/api../admin"). With a prefix ending in "/"
     * the client's segments arrive whole after a base path checked at load.
     */
    public boolean mappingMayJoinSegments() {
        return !rewrites.isEmpty() || !prefix.endsWith("/");
    }

    /**
     * The upstream path and query for a request: the first rewrite rule found in {@code
     * requestPath}, else the prefix mapping with the client's query.
     *
     * @throws Rewrites.TooCostly when the rules' matching on this path exceeded its budget
     */
    public Rewrites.Target upstreamTarget(String requestPath, String query) {
        if (!rewrites.isEmpty()) {
            Rewrites.Target rewritten = rewrites.apply(requestPath, query);
            if (rewritten != null) {
                return rewritten;
            }
        }
        return new Rewrites.Target(rewrite(requestPath), query);
    }
}
