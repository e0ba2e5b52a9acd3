package io.kodiak.upstream;

/**
 * Chooses one of a group's candidate servers for a request. Called under the group's lock with
 * the servers that may take the request now (never empty); {@code key} is the request's hash key
 * (null when the group does not hash or the request has none).
 */
interface Balancer {
    UpstreamServer choose(UpstreamServer[] candidates, int count, String key);
}
