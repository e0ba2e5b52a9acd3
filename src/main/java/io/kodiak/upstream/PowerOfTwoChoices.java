package io.kodiak.upstream;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Power of two choices: two distinct candidates at random, the one with fewer requests in flight
 * for its weight wins. Nearly as even as least-connections without looking at every server, and
 * no herd on the one least-loaded server when many proxies share a group (Envoy's LEAST_REQUEST).
 */
final class PowerOfTwoChoices implements Balancer {
    @Override
    public UpstreamServer choose(UpstreamServer[] candidates, int count, String key) {
        if (count == 1) {
            return candidates[0];
        }
        ThreadLocalRandom random = ThreadLocalRandom.current();
        int a = random.nextInt(count);
        int b = random.nextInt(count - 1);
        if (b >= a) {
            b++;
        }
        UpstreamServer first = candidates[a];
        UpstreamServer second = candidates[b];
        return (long) second.inFlight() * first.weight() < (long) first.inFlight() * second.weight() ? second : first;
    }
}
