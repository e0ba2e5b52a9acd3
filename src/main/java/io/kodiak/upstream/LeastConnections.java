package io.kodiak.upstream;

/**
 * The candidate with the fewest requests in flight for its weight (in-flight / weight, compared
 * without division); ties go round-robin from where the last pick left off, so an idle group
 * still spreads its requests (nginx's least_conn does the same).
 */
final class LeastConnections implements Balancer {
    private int next;

    @Override
    public UpstreamServer choose(UpstreamServer[] candidates, int count, String key) {
        int start = Math.floorMod(next++, count);
        UpstreamServer best = null;
        for (int k = 0; k < count; k++) {
            UpstreamServer server = candidates[(start + k) % count];
            if (best == null || (long) server.inFlight() * best.weight() < (long) best.inFlight() * server.weight()) {
                best = server;
            }
        }
        return best;
    }
}
