package io.kodiak.upstream;

import io.kodiak.config.UpstreamGroupConfig;

/**
 * Where a group's servers are found when some are names looked up while Kodiak runs (resolve =
 * true, discovery): the group as it serves now, its names replaced by their current addresses.
 * {@link UpstreamClient} asks it for every group it builds, so a changed answer reaches the
 * groups through the same build that a reload runs.
 */
public interface ServerDirectory {

    /**
     * {@code settings}: the group with the servers it has now; {@code unavailable}: when it has
     * none because its names have not resolved, why (for the 503 and the log), else null.
     */
    record Found(UpstreamGroupConfig settings, String unavailable) {
    }

    Found servers(UpstreamGroupConfig configured);

    /** Groups whose servers are all given by address or looked up once (no resolve, no discovery). */
    ServerDirectory STATIC = configured -> new Found(configured, null);
}
