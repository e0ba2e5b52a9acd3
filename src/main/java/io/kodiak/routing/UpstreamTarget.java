package io.kodiak.routing;

/**
 * An upstream origin plus the base path requests are rewritten onto. {@code authority} is the
 * Host header value sent upstream by default.
 */
public record UpstreamTarget(String host, int port, String basePath, String authority) {

    public UpstreamTarget(String host, int port, String basePath) {
        // Computed once: every forwarded request sends it as Host and logs it.
        this(host, port, basePath, (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port);
    }

    /** Pools are per host:port; two routes to the same origin share connections. */
    public String originKey() {
        return authority;
    }
}
