package io.kodiak.upstream;

import io.kodiak.config.UpstreamGroupConfig;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BalancerTest {

    private static UpstreamServer[] servers(int... weights) {
        UpstreamServer[] servers = new UpstreamServer[weights.length];
        for (int i = 0; i < weights.length; i++) {
            servers[i] = new UpstreamServer("g", i, new UpstreamGroupConfig.Server("http://10.0.0." + i + ":80",
                    "10.0.0." + i, 80, weights[i], false, false), null, UpstreamGroupConfig.Passive.OFF, null);
        }
        return servers;
    }

    private static String sequence(Balancer balancer, UpstreamServer[] servers, int picks) {
        StringBuilder order = new StringBuilder();
        for (int i = 0; i < picks; i++) {
            order.append((char) ('a' + balancer.choose(servers, servers.length, null).index()));
        }
        return order.toString();
    }

    @Test
    void smoothWeightedRoundRobinIsExactOverACycleAndInterleaves() {
        UpstreamServer[] servers = servers(5, 1, 1);
        SmoothWeightedRoundRobin balancer = new SmoothWeightedRoundRobin();
        // nginx's documented sequence for weights 5, 1, 1.
        assertEquals("aabacaa", sequence(balancer, servers, 7));
        assertEquals("aabacaa", sequence(balancer, servers, 7), "the next cycle is the same");
        UpstreamServer[] uneven = servers(3, 2, 4, 1);
        String cycles = sequence(new SmoothWeightedRoundRobin(), uneven, 10 * 7);
        for (int i = 0; i < uneven.length; i++) {
            char c = (char) ('a' + i);
            assertEquals(uneven[i].weight() * 7, cycles.chars().filter(x -> x == c).count());
        }
        assertTrue(!sequence(new SmoothWeightedRoundRobin(), servers(1, 1, 1), 3).contains("aa"));
    }

    @Test
    void leastConnectionsPicksTheLeastBusyForItsWeightAndRotatesTies() {
        UpstreamServer[] servers = servers(1, 1, 2);
        servers[0].begin();
        servers[0].begin();
        servers[1].begin();
        servers[2].begin();
        servers[2].begin();
        // in flight per weight: 2, 1, 1 (2 of weight 2): b and c tie, a is never chosen.
        LeastConnections balancer = new LeastConnections();
        String order = sequence(balancer, servers, 6);
        assertTrue(!order.contains("a"), order);
        assertTrue(order.contains("b") && order.contains("c"), "ties rotate: " + order);
        servers[1].end();
        assertEquals("bbb", sequence(balancer, servers, 3));
    }

    @Test
    void powerOfTwoChoicesNeverPicksTheBusierOfItsTwo() {
        UpstreamServer[] servers = servers(1, 1);
        for (int i = 0; i < 10; i++) {
            servers[0].begin();
        }
        assertEquals("bbbbbbbbbbbbbbbbbbbb", sequence(new PowerOfTwoChoices(), servers, 20));
        UpstreamServer[] many = servers(1, 1, 1, 1, 1);
        Map<Integer, Integer> counts = new HashMap<>();
        PowerOfTwoChoices balancer = new PowerOfTwoChoices();
        for (int i = 0; i < 5000; i++) {
            counts.merge(balancer.choose(many, many.length, null).index(), 1, Integer::sum);
        }
        assertEquals(5, counts.size(), "every idle server gets requests");
    }

    @Test
    void consistentHashingMovesAboutOneNthOfTheKeysWhenAServerIsAdded() {
        UpstreamServer[] four = servers(1, 1, 1, 1);
        UpstreamServer[] five = servers(1, 1, 1, 1, 1);
        ConsistentHash before = new ConsistentHash(four);
        ConsistentHash after = new ConsistentHash(five);
        int keys = 20_000;
        int moved = 0;
        int[] load = new int[5];
        for (int k = 0; k < keys; k++) {
            String key = "user-" + k;
            int was = before.choose(four, four.length, key).index();
            int is = after.choose(five, five.length, key).index();
            load[is]++;
            if (was != is) {
                moved++;
                assertEquals(4, is, "a key only ever moves to the new server");
            }
        }
        double share = moved / (double) keys;
        assertTrue(share > 0.12 && share < 0.28, "about 1/5 of the keys move: " + share);
        for (int n : load) {
            assertTrue(n > keys / 5 * 0.75 && n < keys / 5 * 1.25, "even load: " + Arrays.toString(load));
        }
    }

    @Test
    void consistentHashingSendsADownServersKeysToTheOthersAndOnlyThose() {
        UpstreamServer[] servers = servers(1, 1, 1);
        ConsistentHash ring = new ConsistentHash(servers);
        UpstreamServer[] withoutB = {servers[0], servers[2]};
        for (int k = 0; k < 2000; k++) {
            String key = "k" + k;
            UpstreamServer all = ring.choose(servers, 3, key);
            UpstreamServer some = ring.choose(withoutB, 2, key);
            if (all.index() != 1) {
                assertEquals(all, some, "keys of live servers stay");
            } else {
                assertNotEquals(1, some.index());
            }
        }
    }

    @Test
    void passiveHealthEjectsAfterMaxFailsWithinTheWindowAndDoublesAfterAFailedTrial() {
        PassiveHealth health = new PassiveHealth(new UpstreamGroupConfig.Passive(2, Duration.ofSeconds(10)));
        assertTrue(!health.failure(0, 0));
        assertTrue(!health.failure(20_000, 20_000), "the first failure's window ended: counting starts again");
        assertTrue(health.failure(21_000, 21_000));
        assertEquals(PassiveHealth.State.EJECTED, health.state());
        assertTrue(!health.admits(30_000));
        assertTrue(health.claim(31_000), "the trial after fail-timeout");
        assertTrue(!health.claim(31_000), "one trial at a time");
        assertTrue(health.claim(41_000), "unless the first gave no verdict within fail-timeout");
        assertTrue(!health.failure(41_200, 25_000), "an attempt from before the trial decides nothing");
        assertTrue(!health.success(30_000), "nor does its success");
        assertEquals(PassiveHealth.State.TRIAL, health.state());
        assertTrue(health.failure(41_500, 41_000), "a failed trial ejects again");
        assertEquals(20_000, health.ejectionMillis(), "for twice as long");
        assertTrue(!health.admits(60_000));
        assertTrue(health.claim(61_500));
        assertTrue(health.success(61_500));
        assertEquals(PassiveHealth.State.HEALTHY, health.state());
    }

    @Test
    void aGroupOfOneServerLeavesItsEjectionThroughATrialAsOthersDo() throws InterruptedException {
        UpstreamServer only = new UpstreamServer("g", 0, new UpstreamGroupConfig.Server("http://10.0.0.1:80",
                "10.0.0.1", 80, 1, false, false), null, new UpstreamGroupConfig.Passive(1, Duration.ofSeconds(1)), null);
        UpstreamGroup group = new UpstreamGroup(new UpstreamGroupConfig("g", java.util.List.of(), UpstreamGroupConfig.Balance.ROUND_ROBIN,
                null, new UpstreamGroupConfig.Passive(1, Duration.ofSeconds(1)), null, UpstreamGroupConfig.Retry.NONE, null, false),
                java.util.List.of(only));
        only.failed("test", System.currentTimeMillis());
        assertEquals(UpstreamServer.Status.EJECTED, only.status());
        assertEquals(only, group.pick(0, null), "the only server is used even while out");
        io.kodiak.support.Await.await(() -> {
            UpstreamServer picked = group.pick(0, null);
            picked.succeeded(System.currentTimeMillis());
            return only.status() == UpstreamServer.Status.UP;
        }, "once fail-timeout passed, a pick is its trial and a success ends the ejection");
    }

    @Test
    void theRetryBudgetAllowsItsShareOfRecentRequestsPlusAMinimum() {
        RetryBudget budget = new RetryBudget(0.10);
        for (int i = 0; i < 100; i++) {
            budget.request(1_000);
        }
        int allowed = 0;
        while (budget.tryRetry(1_500)) {
            allowed++;
        }
        assertEquals(13, allowed, "10 % of 100 requests plus 3");
        assertTrue(budget.tryRetry(1_000 + RetryBudget.WINDOW_SECONDS * 1000L), "the window moved on");
    }
}
