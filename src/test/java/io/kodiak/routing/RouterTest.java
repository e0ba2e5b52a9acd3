package io.kodiak.routing;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class RouterTest {
    private static Route route(String prefix, String basePath) {
        return new Route(prefix, new UpstreamTarget("127.0.0.1", 8080, basePath), false, "http://127.0.0.1:8080" + basePath);
    }

    @Test
    void longestPrefixWinsWhateverTheOrder() {
        Router router = new Router(List.of(route("/", "/root"), route("/api/v1/", "/one/"), route("/api/", "/any/")));
        assertEquals("/api/v1/", router.match("/api/v1/users").prefix());
        assertEquals("/api/", router.match("/api/v2").prefix());
        assertEquals("/", router.match("/other").prefix());
    }

    @Test
    void noMatchIsNull() {
        assertNull(new Router(List.of(route("/only", "/x"))).match("/else"));
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
}
