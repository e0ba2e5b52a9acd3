package io.kodiak.routing;

/** Requests whose path starts with {@code prefix} go to {@code target}, prefix replaced by the target's path. */
public record Route(String prefix, UpstreamTarget target, boolean preserveHost, String upstreamUrl) {

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
