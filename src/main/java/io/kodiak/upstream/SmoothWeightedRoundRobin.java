package io.kodiak.upstream;

/**
 * nginx's smooth weighted round-robin: every pick adds each candidate's weight to its running
 * weight and takes the largest, which then gives back the candidates' total. Over a cycle of
 * total-weight picks each server is chosen exactly weight times, interleaved (5,1,1 gives
 * a a b a c a a, not a a a a a b c).
 */
final class SmoothWeightedRoundRobin implements Balancer {
    @Override
    public UpstreamServer choose(UpstreamServer[] candidates, int count, String key) {
        UpstreamServer best = null;
        int total = 0;
        for (int i = 0; i < count; i++) {
            UpstreamServer server = candidates[i];
            server.currentWeight += server.weight();
            total += server.weight();
            if (best == null || server.currentWeight > best.currentWeight) {
                best = server;
            }
        }
        best.currentWeight -= total;
        return best;
    }
}
