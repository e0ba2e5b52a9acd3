package io.kodiak.routing;

/**
 * Where a route sends requests: an upstream origin (host:port) or an upstream group's name
 * ({@code namesGroup}), plus the base path requests are rewritten onto. {@code authority} is the
 * Host header value sent upstream by default: host:port for an origin, the name for a group (as
 * nginx's proxy_pass http://NAME/ sends).
 */
public record UpstreamTarget(String host, int port, String basePath, String authority, boolean namesGroup) {

    public UpstreamTarget(String host, int port, String basePath) {
        // Computed once: every forwarded request sends it as Host and logs it.
        this(host, port, basePath, (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port, false);
    }

    /** The upstream group {@code name}; its servers carry the addresses. */
    public static UpstreamTarget group(String name, String basePath) {
        return new UpstreamTarget(name, -1, basePath, name, true);
    }

    /** An origin's host:port: routes to the same origin share one implicit group and its pool. */
    public String originKey() {
        return authority;
    }
}
