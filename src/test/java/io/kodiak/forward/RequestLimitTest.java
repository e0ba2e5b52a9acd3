package io.kodiak.forward;

import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import io.kodiak.support.RecordingUpstream;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Request limits end to end: 429 with Retry-After past the burst, per key, per route and global,
 * the connection kept, and nothing forwarded for a refused request. The rates are tiny (one
 * request per 100 s), so that no refill can happen while a test runs, however slow the machine.
 */
class RequestLimitTest {

    private static RawHttp.Response get(RawHttp raw, String path, String... fields) throws Exception {
        StringBuilder request = new StringBuilder("GET " + path + " HTTP/1.1\r\nHost: limits.test\r\n");
        for (String field : fields) {
            request.append(field).append("\r\n");
        }
        raw.send(request.append("\r\n").toString());
        return raw.read();
    }

    @Test
    void aRoutesLimitAnswers429PastItsBurstPerKeyAndKeepsTheConnection() throws Exception {
        try (RecordingUpstream upstream = new RecordingUpstream(RecordingUpstream.ECHO);
             ProxyHarness proxy = ProxyHarness.start("""
                     proxy.routes = [
                       { prefix = "/limited/", upstream = "%s", limits { requests-per-second = 0.01, burst = 1, key = "header:X-Api-Key" } }
                       { prefix = "/", upstream = "%s" }
                     ]
                     """.formatted(upstream.url("/limited/"), upstream.url("/")));
             RawHttp raw = new RawHttp(proxy.port())) {
            // burst + 1 at once
            assertEquals(200, get(raw, "/limited/1", "X-Api-Key: alpha").status());
            assertEquals(200, get(raw, "/limited/2", "X-Api-Key: alpha").status());
            RawHttp.Response refused = get(raw, "/limited/3", "X-Api-Key: alpha");
            assertEquals(429, refused.status());
            long retryAfter = Long.parseLong(refused.header("Retry-After"));
            assertTrue(retryAfter > 90 && retryAfter <= 100, "Retry-After " + retryAfter);
            assertFalse("close".equalsIgnoreCase(refused.header("Connection")));
            // another key has its own bucket; the route without a limit is not limited
            assertEquals(200, get(raw, "/limited/4", "X-Api-Key: beta").status());
            assertEquals(200, get(raw, "/free", "X-Api-Key: alpha").status());
            // without the header the client's address is the key, with a bucket of its own
            assertEquals(200, get(raw, "/limited/5").status());
            assertEquals(200, get(raw, "/limited/6").status());
            assertEquals(429, get(raw, "/limited/7").status());
            assertEquals(5, upstream.received().stream().filter(r -> r.target().startsWith("/limited/")).count(),
                    "a refused request reaches no upstream");
        }
    }

    @Test
    void theGlobalLimitAppliesToEveryRouteAndAReloadKeepsItsState() throws Exception {
        try (RecordingUpstream upstream = new RecordingUpstream(RecordingUpstream.ECHO);
             ProxyHarness proxy = ProxyHarness.start("""
                     proxy.routes = [ { prefix = "/a/", upstream = "%s" }, { prefix = "/", upstream = "%s" } ]
                     proxy.limits { requests-per-second = 0.01, burst = 2 }
                     """.formatted(upstream.url("/"), upstream.url("/")));
             RawHttp raw = new RawHttp(proxy.port())) {
            assertEquals(200, get(raw, "/a/1").status());
            assertEquals(200, get(raw, "/b/2").status());
            // An unchanged limit keeps its buckets over a reload: no fresh burst for anyone.
            proxy.reload("""
                    proxy.routes = [ { prefix = "/a/", upstream = "%s" }, { prefix = "/", upstream = "%s" }, { prefix = "/c/", upstream = "%s" } ]
                    proxy.limits { requests-per-second = 0.01, burst = 2 }
                    """.formatted(upstream.url("/"), upstream.url("/"), upstream.url("/")));
            assertEquals(200, get(raw, "/c/3").status());
            assertEquals(429, get(raw, "/a/4").status());
            assertEquals(429, get(raw, "/c/5").status());
            // A changed limit starts afresh.
            proxy.reload("""
                    proxy.routes = [ { prefix = "/", upstream = "%s" } ]
                    proxy.limits { requests-per-second = 0.01, burst = 0 }
                    """.formatted(upstream.url("/")));
            assertEquals(200, get(raw, "/6").status());
            assertEquals(429, get(raw, "/7").status());
        }
    }

    @Test
    void aHeaderValueCannotDrainTheBucketOfAnAddress() throws Exception {
        try (RecordingUpstream upstream = new RecordingUpstream(RecordingUpstream.ECHO);
             ProxyHarness proxy = ProxyHarness.start("""
                     proxy.routes = [ { prefix = "/", upstream = "%s" } ]
                     proxy.limits { requests-per-second = 0.01, burst = 0, key = "header:X-Api-Key" }
                     """.formatted(upstream.url("/")));
             RawHttp raw = new RawHttp(proxy.port())) {
            // A key equal to this client's address is a key like any other: a bucket of its own.
            assertEquals(200, get(raw, "/1", "X-Api-Key: 127.0.0.1").status());
            assertEquals(200, get(raw, "/2").status());
            assertEquals(429, get(raw, "/3").status());
            // A long key (kept as its digest) limits as well as a short one.
            String longKey = "k".repeat(5000);
            assertEquals(200, get(raw, "/4", "X-Api-Key: " + longKey).status());
            assertEquals(429, get(raw, "/5", "X-Api-Key: " + longKey).status());
        }
    }
}
