package io.kodiak.routing;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RouterTest {
    private static Route route(String prefix, String basePath) {
        return new Route(prefix, new UpstreamTarget("127.0.0.1", 8080, basePath), false, "http://127.0.0.1:8080" + basePath);
    }

    @Test
    void longestPrefixWinsWhateverTheOrder() {
        Router router = new Router(List.of(route("/", "/root"), route("/api/v1/", "/one/"), route("/api/", "/any/")));
        assertEquals("/api/v1/", router.match(null, "/api/v1/users").prefix());
        assertEquals("/api/", router.match(null, "/api/v2").prefix());
        assertEquals("/", router.match(null, "/other").prefix());
    }

    @Test
    void noMatchIsNull() {
        assertNull(new Router(List.of(route("/only", "/x"))).match(null, "/else"));
    }

    @Test
    void prefixIsReplacedByTheUpstreamPathLikeNginxProxyPass() {
        assertEquals("/ProxiedServiceStub/ServiceStubServlet",
                route("/", "/ProxiedServiceStub/ServiceStubServlet").rewrite("/"));
        assertEquals("/one/users/7", route("/api/v1/", "/one/").rewrite("/api/v1/users/7"));
        assertEquals("/rootx", route("/", "/root").rewrite("/x"));
        assertEquals("/", route("/", "").rewrite("/"));
        assertEquals("/a", route("/", "").rewrite("/a"));
    }

    @Test
    void ipv6AuthorityIsBracketed() {
        assertEquals("[::1]:8080", new UpstreamTarget("::1", 8080, "").authority());
    }

    @Test
    void dotSegmentsAreFoundInEveryDisguise() {
        for (String path : List.of("/..", "/.", "/a/..", "/a/../b", "/a/./b", "/%2e%2e/b", "/%2E./b", "/a/.%2e",
                "/a/..;jsessionid=1/b", "/a/.;x/b", "..", "./a")) {
            assertTrue(Router.hasDotSegment(path), path);
        }
    }

    @Test
    void namesThatOnlyContainDotsAreNoDotSegments() {
        for (String path : List.of("/", "/a/b", "/.well-known/x", "/a/.../b", "/a/..b", "/a/b..", "/v1.2/x", "/a/%2e%2e%2e",
                "/a;x=../b", "/a/%2f..")) {
            assertFalse(Router.hasDotSegment(path), path);
        }
    }
}
