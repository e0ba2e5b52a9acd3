package io.kodiak.limits;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * nginx's limit_req with burst and nodelay, as a GCRA per key: burst + 1 requests at once, then
 * one per interval. Time is given as synthetic nanoseconds, so nothing sleeps.
 */
class RequestLimiterTest {
    private static final long SECOND = 1_000_000_000L;
    /** An arbitrary, negative start: System.nanoTime may be anything, negative included. */
    private static final long T0 = -7_000_000_000_000L;

    private static RequestLimiter limiter(double rate, int burst, int maxKeys) {
        return new RequestLimiter(new LimitSettings(rate, burst, LimitKey.CLIENT_ADDRESS, maxKeys));
    }

    /** Routes' limits by route name, as Generation hands them to Limits.of. */
    @SafeVarargs
    private static Map<String, LimitSettings> routes(Map.Entry<String, LimitSettings>... routes) {
        Map<String, LimitSettings> byName = new LinkedHashMap<>();
        for (Map.Entry<String, LimitSettings> route : routes) {
            byName.put(route.getKey(), route.getValue());
        }
        return byName;
    }

    private static Map.Entry<String, LimitSettings> route(String name, LimitSettings limits) {
        return Map.entry(name, limits);
    }

    // ------------------------------------------------------------- the bucket

    @Test
    void burstPlusOneRequestsPassAtOnceAndTheNextWaitsOneInterval() {
        RequestLimiter limiter = limiter(10, 4, 100);
        for (int i = 0; i < 5; i++) {
            assertEquals(0, limiter.take("a", T0), "request " + i + " of burst + 1");
        }
        assertEquals(SECOND / 10, limiter.take("a", T0));
    }

    @Test
    void aRefusedRequestTakesNothing() {
        // Otherwise a client retrying too early would push its own next slot ever further away.
        RequestLimiter limiter = limiter(10, 0, 100);
        assertEquals(0, limiter.take("a", T0));
        for (int i = 0; i < 5; i++) {
            assertEquals(SECOND / 10, limiter.take("a", T0));
        }
        assertEquals(SECOND / 10 - 30_000_000, limiter.take("a", T0 + 30_000_000));
        assertEquals(0, limiter.take("a", T0 + SECOND / 10));
    }

    @Test
    void theWaitShrinksAsTimePasses() {
        RequestLimiter limiter = limiter(1, 0, 100);
        assertEquals(0, limiter.take("a", T0));
        assertEquals(SECOND, limiter.take("a", T0));
        assertEquals(SECOND / 4, limiter.take("a", T0 + 3 * SECOND / 4));
        assertEquals(0, limiter.take("a", T0 + SECOND));
    }

    @Test
    void tokensComeBackAtTheRate() {
        RequestLimiter limiter = limiter(10, 2, 100);
        for (int i = 0; i < 3; i++) {
            assertEquals(0, limiter.take("a", T0));
        }
        assertTrue(limiter.take("a", T0) > 0);
        // 0.2 s later two tokens are back, not three.
        long later = T0 + 2 * SECOND / 10;
        assertEquals(0, limiter.take("a", later));
        assertEquals(0, limiter.take("a", later));
        assertEquals(SECOND / 10, limiter.take("a", later));
    }

    @Test
    void aLongPauseRefillsTheBucketButNeverBeyondBurstPlusOne() {
        RequestLimiter limiter = limiter(10, 2, 100);
        assertEquals(0, limiter.take("a", T0));
        long muchLater = T0 + 3600 * SECOND;
        for (int i = 0; i < 3; i++) {
            assertEquals(0, limiter.take("a", muchLater), "request " + i);
        }
        assertEquals(SECOND / 10, limiter.take("a", muchLater), "an idle hour saves up no more than the burst");
    }

    @Test
    void aSteadyClientAtTheRateIsNeverRefused() {
        RequestLimiter limiter = limiter(5, 0, 100);
        for (int i = 0; i < 100; i++) {
            assertEquals(0, limiter.take("a", T0 + i * (SECOND / 5)), "request " + i);
        }
    }

    @Test
    void keysAreIndependent() {
        RequestLimiter limiter = limiter(1, 0, 100);
        assertEquals(0, limiter.take("192.0.2.1", T0));
        assertTrue(limiter.take("192.0.2.1", T0) > 0);
        assertEquals(0, limiter.take("192.0.2.2", T0), "another client has its own bucket");
        assertTrue(limiter.take("192.0.2.1", T0) > 0, "and taking from it leaves the first one's alone");
    }

    @Test
    void aFractionalRateSpacesRequestsFurtherThanASecond() {
        // 0.5 rps: one every 2 s.
        RequestLimiter limiter = limiter(0.5, 0, 100);
        assertEquals(0, limiter.take("a", T0));
        assertEquals(2 * SECOND, limiter.take("a", T0));
        assertEquals(SECOND, limiter.take("a", T0 + SECOND));
        assertEquals(0, limiter.take("a", T0 + 2 * SECOND));
    }

    // ------------------------------------------------------------ bounded keys

    @Test
    void theNumberOfKeysStaysBoundedHoweverManyAppear() {
        // 16 segments of ceil(16 / 16) = 1 key each: never more than 16 keys in all.
        RequestLimiter limiter = limiter(1, 0, 16);
        for (int i = 0; i < 5000; i++) {
            limiter.take("10.0." + (i / 256) + "." + (i % 256), T0);
            assertTrue(limiter.keys() <= 16, "keys " + limiter.keys() + " after " + (i + 1));
        }
        assertTrue(limiter.keys() > 0);
    }

    @Test
    void aLargerBoundHoldsAtMostTheRoundedUpSegmentCapacity() {
        // 100 keys over 16 segments: ceil(100 / 16) = 7 per segment, 112 at most.
        RequestLimiter limiter = limiter(1, 0, 100);
        for (int i = 0; i < 10_000; i++) {
            limiter.take("key-" + i, T0);
        }
        assertTrue(limiter.keys() <= 112, "keys " + limiter.keys());
        assertTrue(limiter.keys() >= 16, "each segment keeps some: " + limiter.keys());
    }

    @Test
    void aForgottenKeyStartsAgainWithAFullBucket() {
        // The documented price of the bound: with room for one key per segment, keys that share
        // a segment push each other out.
        RequestLimiter limiter = limiter(1, 0, 16);
        assertEquals(0, limiter.take("a", T0));
        assertTrue(limiter.take("a", T0) > 0);
        String sameSegment = null;
        for (int i = 0; sameSegment == null; i++) {
            String candidate = "other-" + i;
            if ((candidate.hashCode() & 0x7fffffff) % 16 == ("a".hashCode() & 0x7fffffff) % 16) {
                sameSegment = candidate;
            }
        }
        assertEquals(0, limiter.take(sameSegment, T0));
        assertEquals(0, limiter.take("a", T0), "\"a\" was forgotten");
    }

    @Test
    void aRecentlySeenKeyOutlivesAnOlderOne() {
        // LRU, not FIFO: with two keys per segment, touching the first keeps it when a third arrives.
        RequestLimiter limiter = limiter(1, 0, 32);
        int segment = ("a".hashCode() & 0x7fffffff) % 16;
        String[] same = new String[2];
        for (int i = 0, found = 0; found < 2; i++) {
            String candidate = "k" + i;
            if ((candidate.hashCode() & 0x7fffffff) % 16 == segment) {
                same[found++] = candidate;
            }
        }
        assertEquals(0, limiter.take("a", T0));
        assertEquals(0, limiter.take(same[0], T0));
        assertTrue(limiter.take("a", T0) > 0, "touches \"a\"");
        assertEquals(0, limiter.take(same[1], T0), "pushes out " + same[0] + ", the least recently seen");
        assertTrue(limiter.take("a", T0) > 0, "\"a\" is still limited");
        assertEquals(0, limiter.take(same[0], T0), same[0] + " was forgotten");
    }

    // ----------------------------------------------------------------- Limits

    @Test
    void aReloadKeepsAnUnchangedLimiterWithItsState() {
        LimitSettings settings = new LimitSettings(1, 0, LimitKey.CLIENT_ADDRESS, 100);
        Limits first = Limits.of(settings, routes(route("/api/", settings)), Limits.NONE);
        Limits second = Limits.of(new LimitSettings(1, 0, LimitKey.CLIENT_ADDRESS, 100),
                routes(route("/api/", new LimitSettings(1, 0, LimitKey.CLIENT_ADDRESS, 100))), first);
        assertSame(first.limiter(null), second.limiter(null));
        assertSame(first.limiter("/api/"), second.limiter("/api/"));
    }

    @Test
    void aReloadDoesNotHandEveryClientAFreshBurst() {
        LimitSettings settings = new LimitSettings(1, 0, LimitKey.CLIENT_ADDRESS, 100);
        Map.Entry<String, LimitSettings> route = route("/", LimitSettings.OFF);
        Limits first = Limits.of(settings, routes(route), Limits.NONE);
        assertEquals(0, first.take(route.getKey(), key -> "a", T0));
        Limits second = Limits.of(settings, routes(route), first);
        assertTrue(second.take(route.getKey(), key -> "a", T0) > 0);
    }

    @Test
    void aReloadReplacesAChangedLimiter() {
        LimitSettings before = new LimitSettings(1, 0, LimitKey.CLIENT_ADDRESS, 100);
        Limits first = Limits.of(before, routes(route("/api/", before)), Limits.NONE);
        LimitSettings after = new LimitSettings(2, 0, LimitKey.CLIENT_ADDRESS, 100);
        Limits second = Limits.of(after, routes(route("/api/", after)), first);
        assertNotSame(first.limiter(null), second.limiter(null));
        assertNotSame(first.limiter("/api/"), second.limiter("/api/"));
        assertEquals(after, second.limiter("/api/").settings());
    }

    @Test
    void eachSettingCountsAsAChange() {
        LimitSettings base = new LimitSettings(1, 0, LimitKey.CLIENT_ADDRESS, 100);
        Limits first = Limits.of(base, routes(), Limits.NONE);
        for (LimitSettings changed : List.of(new LimitSettings(1, 1, LimitKey.CLIENT_ADDRESS, 100),
                new LimitSettings(1, 0, new LimitKey("x-api-key"), 100),
                new LimitSettings(1, 0, LimitKey.CLIENT_ADDRESS, 101))) {
            assertNotSame(first.limiter(null), Limits.of(changed, routes(), first).limiter(null), changed.toString());
        }
    }

    @Test
    void aRouteWithoutLimitsHasNoLimiterAndNoLimitsAtAllIsNone() {
        Limits limits = Limits.of(LimitSettings.OFF, routes(route("/", LimitSettings.OFF)), Limits.NONE);
        assertTrue(limits.isEmpty());
        assertNull(limits.limiter(null));
        assertNull(limits.limiter("/"));
    }

    @Test
    void theGlobalLimitIsAskedBeforeTheRoutes() {
        LimitSettings one = new LimitSettings(1, 0, LimitKey.CLIENT_ADDRESS, 100);
        LimitSettings many = new LimitSettings(1000, 100, LimitKey.CLIENT_ADDRESS, 100);
        Map.Entry<String, LimitSettings> strict = route("/strict/", one);
        Map.Entry<String, LimitSettings> loose = route("/loose/", LimitSettings.OFF);
        Limits limits = Limits.of(many, routes(strict, loose), Limits.NONE);
        assertFalse(limits.isEmpty());
        assertEquals(0, limits.take(strict.getKey(), key -> "a", T0));
        assertTrue(limits.take(strict.getKey(), key -> "a", T0) > 0, "the route's own limit");
        assertEquals(0, limits.take(loose.getKey(), key -> "a", T0), "a route without its own limit");
    }

    // --------------------------------------------------------------- LimitKey

    @Test
    void clientAddressIsTheDefaultKey() throws Exception {
        assertSame(LimitKey.CLIENT_ADDRESS, LimitKey.parse("client-address"));
        assertFalse(LimitKey.CLIENT_ADDRESS.byHeader());
        assertEquals("client-address", LimitKey.CLIENT_ADDRESS.toString());
    }

    @Test
    void aHeaderKeyIsReadInLowerCase() throws Exception {
        LimitKey key = LimitKey.parse("header:X-Api-Key");
        assertTrue(key.byHeader());
        assertEquals("x-api-key", key.headerName());
        assertEquals("header:x-api-key", key.toString());
    }

    @Test
    void otherKeysAreRefused() {
        for (String text : List.of("cookie:x", "header:", "header:a b", "header:a:b", "", "address", "header")) {
            assertThrows(LimitKey.Invalid.class, () -> LimitKey.parse(text), text);
        }
    }
}
