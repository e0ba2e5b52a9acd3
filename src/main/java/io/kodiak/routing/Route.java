package io.kodiak.routing;

/**
 * Requests whose path starts with {@code prefix} go to {@code target}, prefix replaced by the
 * target's path. {@code upgrade}: requests asking to switch protocols (WebSocket) are relayed;
 * when false the upgrade is stripped and the request served as an ordinary one. {@code group}:
 * the upstream group that serves the route (a named one, or the implicit group of the target's
 * host:port).
 */
public record Route(String prefix, UpstreamTarget target, boolean preserveHost, String upstreamUrl, boolean upgrade,
                    String group) {

    public Route(String prefix, UpstreamTarget target, boolean preserveHost, String upstreamUrl) {
        this(prefix, target, preserveHost, upstreamUrl, true, target.originKey());
    }

    /** The upstream request path: the matched prefix swapped for the target's base path, never empty. */
    public String rewrite(String requestPath) {
        String rest = requestPath.substring(prefix.length());
        String path = target.basePath() + rest;
        if (path.isEmpty()) {
            return "/";
        }
        return path.charAt(0) == '/' ? path : "/" + path;
    }
}
