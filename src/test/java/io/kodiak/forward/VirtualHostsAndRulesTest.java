package io.kodiak.forward;

import io.kodiak.support.AccessLogLines;
import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import io.kodiak.support.RecordingUpstream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.ServerSocket;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Virtual hosts, header rules and rewrites end to end: which upstream a request reaches for each
 * Host, and what exactly that upstream received (read by the strict reference parser) and what
 * the client got back.
 */
class VirtualHostsAndRulesTest {
    /** Answers with the fields a service leaks (Server, X-Powered-By) and names itself in the body. */
    private static RecordingUpstream upstream(String name) throws Exception {
        return new RecordingUpstream(r -> {
            String body = name + " " + r.target();
            return "HTTP/1.1 200 OK\r\nServer: Tomcat\r\nX-Powered-By: Servlet\r\nX-Kept: yes\r\nContent-Length: "
                    + body.length() + "\r\n\r\n" + body;
        });
    }

    private static RecordingUpstream api;
    private static RecordingUpstream org;
    private static RecordingUpstream fallback;
    private static ProxyHarness proxy;

    @BeforeAll
    static void start() throws Exception {
        api = upstream("api");
        org = upstream("org");
        fallback = upstream("default");
        proxy = ProxyHarness.start("""
                proxy.routes = [
                  { host = "api.example.com", prefix = "/v1/", upstream = "%s",
                    request-headers  { set { "X-Env" = "prod", "X-Request-Id" = "${request_id}", "X-Seen" = "${client_addr} ${host} ${scheme}" },
                                       add { "Via" = "kodiak" }, remove = ["X-Debug"] },
                    response-headers { set { "Strict-Transport-Security" = "max-age=63072000" }, remove = ["Server", "X-Powered-By"] },
                    rewrite = [ { match = "^/v1/users/([0-9]+)$", replace = "/api/user?id=$1" },
                                { match = "^/v1/old/(.*)$", replace = "/api/new/$1" },
                                { match = "^/v1/drop$", replace = "/api/dropped?" } ] }
                  { host = "api.example.com", prefix = "/v2/", upstream = "%s",
                    request-headers { set { "Host" = "backend.internal", "X-Forwarded-For" = "hidden" }, remove = ["X-Forwarded-Host", "X-Forwarded-Proto"] } }
                  { host = "*.example.org", prefix = "/", upstream = "%s" }
                  { host = ["*.deep.example.org", "other.test"], prefix = "/", upstream = "%s", request-headers { set { "X-Deep" = "1" } } }
                  { prefix = "/", upstream = "%s" }
                ]
                """.formatted(api.url("/api/"), api.url("/two/"), org.url("/org/"), org.url("/deep/"), fallback.url("/any/")));
    }

    @AfterAll
    static void stop() throws Exception {
        proxy.close();
        api.close();
        org.close();
        fallback.close();
    }

    private static RawHttp.Response get(String target, String host, String... fields) throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            StringBuilder request = new StringBuilder("GET " + target + " HTTP/1.1\r\n");
            if (host != null) {
                request.append("Host: ").append(host).append("\r\n");
            }
            for (String field : fields) {
                request.append(field).append("\r\n");
            }
            raw.send(request.append("Connection: close\r\n\r\n").toString());
            return raw.read();
        }
    }

    /** A port nothing listens on (bound, then released): connecting to it is refused. */
    private static int closedPort() throws java.io.IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static RecordingUpstream.Received last(RecordingUpstream upstream) {
        List<RecordingUpstream.Received> all = upstream.received();
        return all.get(all.size() - 1);
    }

    @ParameterizedTest(name = "Host {0} {1} -> {2}")
    @CsvSource({
            // exact names: case, port and one trailing dot do not matter
            "api.example.com, /v1/x, api /api/x",
            // a prefix spelt with percent-encoded unreserved characters is the same prefix (RFC 3986 §6.2.2.2)
            "api.example.com, /%76%31/x, api /api/x",
            "API.Example.COM, /v1/x, api /api/x",
            "api.example.com:8443, /v1/x, api /api/x",
            "api.example.com., /v1/x, api /api/x",
            // the longest wildcard suffix wins; a wildcard needs a label before it
            "www.example.org, /x, org /org/x",
            "a.b.example.org, /x, org /org/x",
            "x.deep.example.org, /x, org /deep/x",
            "other.test, /x, org /deep/x",
            "example.org, /x, default /any/x",
            // no route for the name: the host-less routes serve it
            "unknown.test, /v1/x, default /any/v1/x",
            "127.0.0.1, /x, default /any/x",
            "[::1]:80, /x, default /any/x",
            "api.example.com.evil.test, /v1/x, default /any/v1/x",
    })
    void theMostSpecificHostThenTheLongestPrefixPicksTheRoute(String host, String path, String body) throws Exception {
        RawHttp.Response response = get(path, host);
        assertEquals(200, response.status(), response.toString());
        assertEquals(body, response.bodyText());
    }

    @Test
    void aHostWithRoutesDoesNotFallBackToTheHostlessOnes() throws Exception {
        assertEquals(404, get("/elsewhere", "api.example.com").status());
    }

    @Test
    void anAbsoluteFormTargetsAuthorityIsTheHost() throws Exception {
        RawHttp.Response response = get("http://api.example.com/v1/abs", "ignored.test");
        assertEquals("api /api/abs", response.bodyText());
    }

    @Test
    void anHttp10RequestWithoutHostGetsTheHostlessRoutes() throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            raw.send("GET /v1/x HTTP/1.0\r\n\r\n");
            assertEquals("default /any/v1/x", raw.read().bodyText());
        }
    }

    @Test
    void requestRulesSetAddAndRemoveWhatTheUpstreamReceives() throws Exception {
        RawHttp.Response response = get("/v1/rules", "api.example.com", "X-Env: dev", "X-ENV: test", "X-Debug: 1",
                "x-debug: 2", "Via: 1.1 client-proxy", "X-Other: kept");
        assertEquals(200, response.status());
        RecordingUpstream.Received received = last(api);
        assertEquals(1, received.count("X-Env"), received.headers().toString());
        assertEquals("prod", received.header("X-Env"));
        assertEquals(0, received.count("X-Debug"));
        assertEquals(2, received.count("Via"), "add appends after the client's own");
        assertEquals("kept", received.header("X-Other"));
        assertTrue(received.header("X-Request-Id").matches("[0-9a-f]{32}"), received.header("X-Request-Id"));
        String scheme = io.kodiak.support.TestTls.scheme();
        assertEquals("127.0.0.1 api.example.com " + scheme, received.header("X-Seen"));
        // Kodiak's own fields stay when no rule names them.
        assertEquals("127.0.0.1", received.header("X-Forwarded-For"));
        assertEquals(List.of(), api.violations());
    }

    @Test
    void everyRequestGetsItsOwnRequestId() throws Exception {
        get("/v1/one", "api.example.com");
        String first = last(api).header("X-Request-Id");
        get("/v1/two", "api.example.com");
        String second = last(api).header("X-Request-Id");
        assertNotNull(first);
        assertTrue(!first.equals(second), first + " twice");
    }

    @Test
    void rulesReplaceAndRemoveTheFieldsKodiakWritesItself() throws Exception {
        get("/v2/own", "api.example.com", "X-Forwarded-For: 10.0.0.1");
        RecordingUpstream.Received received = last(api);
        assertEquals("backend.internal", received.header("Host"));
        assertEquals(1, received.count("Host"));
        assertEquals("hidden", received.header("X-Forwarded-For"));
        assertEquals(1, received.count("X-Forwarded-For"));
        assertNull(received.header("X-Forwarded-Host"));
        assertNull(received.header("X-Forwarded-Proto"));
    }

    @Test
    void responseRulesShapeWhatTheClientGets() throws Exception {
        RawHttp.Response response = get("/v1/response", "api.example.com");
        assertNull(response.header("Server"));
        assertNull(response.header("X-Powered-By"));
        assertEquals("yes", response.header("X-Kept"));
        assertEquals("max-age=63072000", response.header("Strict-Transport-Security"));
        // Another route's responses are untouched.
        RawHttp.Response other = get("/x", "www.example.org");
        assertEquals("Tomcat", other.header("Server"));
        assertNull(other.header("Strict-Transport-Security"));
    }

    @Test
    void routesWithoutRulesForwardHeadersAsBefore() throws Exception {
        get("/plain", "www.example.org", "X-Debug: 1");
        RecordingUpstream.Received received = last(org);
        assertEquals("1", received.header("X-Debug"));
        assertNull(received.header("X-Env"));
        assertEquals("www.example.org", received.header("X-Forwarded-Host"));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
            // the first rule found replaces the whole path; its own query replaces the client's
            "/v1/users/42?x=1, /api/user?id=42",
            // without a query of its own the client's is kept
            "/v1/old/a/b?q=2, /api/new/a/b?q=2",
            // a bare trailing ? drops the client's query
            "/v1/drop?secret=1, /api/dropped",
            // no rule found: the prefix mapping, query kept
            "/v1/users/abc?x=1, /api/users/abc?x=1",
    })
    void rewritesReplaceThePathInOrder(String target, String upstreamTarget) throws Exception {
        assertEquals(200, get(target, "api.example.com").status());
        assertEquals(upstreamTarget, last(api).target());
    }

    @Test
    void aPathTheRewritesCannotAffordIsRefusedAndTheNextClientServed() throws Exception {
        try (RecordingUpstream one = upstream("one");
             ProxyHarness costly = ProxyHarness.start("""
                     proxy.routes = [ { prefix = "/", upstream = "%s",
                                        rewrite = [ { match = "^/((?:[a-z0-9]|/)+)$", replace = "/x/$1" } ] } ]
                     """.formatted(one.url("/")))) {
            // java.util.regex recurses once per character here: a long path would exhaust the stack.
            String longPath = "/" + "abcdefgh/".repeat(600);
            try (RawHttp raw = new RawHttp(costly.port())) {
                raw.send("GET " + longPath + " HTTP/1.1\r\nHost: a.test\r\n\r\n");
                RawHttp.Response refused = raw.read();
                assertEquals(400, refused.status(), refused.toString());
                assertTrue(raw.closedByPeer());
            }
            try (RawHttp raw = new RawHttp(costly.port())) {
                raw.send("GET /short/path HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n");
                assertEquals("one /x/short/path", raw.read().bodyText());
            }
            assertEquals(1, one.received().size(), "nothing forwarded for the refused path");
        }
    }

    @Test
    void aSetHostWinsOverPreserveHostWithOneHostLine() throws Exception {
        try (RecordingUpstream one = upstream("one");
             ProxyHarness both = ProxyHarness.start("""
                     proxy.routes = [ { prefix = "/", upstream = "%s", preserve-host = true,
                                        request-headers { set { "Host" = "backend.internal:8080" } } } ]
                     """.formatted(one.url("/")));
             RawHttp raw = new RawHttp(both.port())) {
            raw.send("GET /h HTTP/1.1\r\nHost: client.test\r\nConnection: close\r\n\r\n");
            assertEquals(200, raw.read().status());
            RecordingUpstream.Received received = one.received().get(0);
            assertEquals(1, received.count("Host"), received.headers().toString());
            assertEquals("backend.internal:8080", received.header("Host"));
            assertEquals(List.of(), one.violations());
        }
    }

    @Test
    void aPrefixWithoutATrailingSlashCannotBeTurnedIntoADotSegment() throws Exception {
        try (RecordingUpstream one = upstream("one");
             ProxyHarness mapped = ProxyHarness.start("""
                     proxy.routes = [ { prefix = "/api", upstream = "%s" } ]
                     """.formatted(one.url("/v1/")))) {
            for (String target : List.of("/api../admin", "/api%2e%2e/admin", "/api./x")) {
                try (RawHttp raw = new RawHttp(mapped.port())) {
                    raw.send("GET " + target + " HTTP/1.1\r\nHost: a.test\r\n\r\n");
                    assertEquals(400, raw.read().status(), target);
                }
            }
            try (RawHttp raw = new RawHttp(mapped.port())) {
                raw.send("GET /api/x HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n");
                assertEquals("one /v1//x", raw.read().bodyText());
            }
            assertEquals(1, one.received().size(), "nothing forwarded for the refused paths");
        }
    }

    @Test
    void theHostVariableCarriesOnlyAPlainName() throws Exception {
        try (RecordingUpstream one = upstream("one");
             ProxyHarness forwarded = ProxyHarness.start("""
                     proxy.routes = [ { prefix = "/", upstream = "%s",
                                        request-headers { set { "Forwarded" = "for=${client_addr};host=${host}" } } } ]
                     """.formatted(one.url("/")));
             RawHttp raw = new RawHttp(forwarded.port())) {
            raw.send("GET /1 HTTP/1.1\r\nHost: Plain.Test:80\r\n\r\n");
            raw.read();
            // Sub-delimiters are valid in a Host, but would add parameters to the field the rule writes.
            raw.send("GET /2 HTTP/1.1\r\nHost: a;for=6.6.6.6\r\nConnection: close\r\n\r\n");
            raw.read();
            assertEquals("for=127.0.0.1;host=plain.test", one.received().get(0).header("Forwarded"));
            assertEquals("for=127.0.0.1;host=", one.received().get(1).header("Forwarded"));
        }
    }

    @Test
    void aReloadChangesHostsAndRulesForTheNextRequests() throws Exception {
        try (RecordingUpstream one = upstream("one"); RecordingUpstream two = upstream("two");
             ProxyHarness reloaded = ProxyHarness.start("""
                     proxy.routes = [ { host = "a.test", prefix = "/", upstream = "%s", request-headers { set { "X-Gen" = "1" } } }
                                      { prefix = "/", upstream = "%s" } ]
                     """.formatted(one.url("/"), two.url("/")))) {
            try (RawHttp raw = new RawHttp(reloaded.port())) {
                raw.send("GET /r HTTP/1.1\r\nHost: a.test\r\n\r\n");
                assertEquals("one /r", raw.read().bodyText());
                assertEquals("1", one.received().get(0).header("X-Gen"));
                reloaded.reload("""
                        proxy.routes = [ { host = "b.test", prefix = "/", upstream = "%s", request-headers { set { "X-Gen" = "2" } } }
                                         { prefix = "/", upstream = "%s" } ]
                        """.formatted(one.url("/"), two.url("/")));
                // The same connection: its next request takes the new generation.
                raw.send("GET /r HTTP/1.1\r\nHost: a.test\r\n\r\n");
                assertEquals("two /r", raw.read().bodyText());
                raw.send("GET /r HTTP/1.1\r\nHost: b.test\r\n\r\n");
                assertEquals("one /r", raw.read().bodyText());
                assertEquals("2", one.received().get(1).header("X-Gen"));
            }
        }
    }

    @Test
    void aKodiak5xxAnswerNamesTheRequestIdTheAccessLogAndUpstreamSee() throws Exception {
        RawHttp.Response response;
        List<String> messages;
        try (AccessLogLines lines = new AccessLogLines()) {
            try (ProxyHarness logged = ProxyHarness.start("""
                    proxy.routes = [ { prefix = "/", upstream = "http://127.0.0.1:%d/" } ]
                    proxy.access-log.format = "$request_id $status \\"$request\\" ua=$http_user_agent host=$host"
                    """.formatted(closedPort()));
                 RawHttp raw = new RawHttp(logged.port())) {
                raw.send("GET /down?q=1 HTTP/1.1\r\nHost: Svc.Test:81\r\nUser-Agent: probe \"1\"\r\nConnection: close\r\n\r\n");
                response = raw.read();
            }
            messages = lines.lines();
        }
        assertEquals(502, response.status());
        Matcher id = Pattern.compile("request id: ([0-9a-f]{32})").matcher(response.bodyText());
        assertTrue(id.find(), response.bodyText());
        assertEquals(List.of(id.group(1) + " 502 \"GET /down?q=1 HTTP/1.1\" ua=probe \\x221\\x22 host=svc.test"), messages);
    }

    @Test
    void a5xxAnswerNamesARequestIdEvenWhenNothingElseWritesThem() throws Exception {
        int closedPort = closedPort();
        try (ProxyHarness plain = ProxyHarness.start("""
                proxy.routes = [ { prefix = "/", upstream = "http://127.0.0.1:%d/" }, { prefix = "/gone/", upstream = "http://127.0.0.1:%d/" } ]
                """.formatted(closedPort, closedPort));
             RawHttp raw = new RawHttp(plain.port())) {
            raw.send("GET /down HTTP/1.1\r\nHost: a.test\r\n\r\n");
            String first = raw.read().bodyText();
            raw.send("GET /gone/x HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n");
            String second = raw.read().bodyText();
            Matcher one = Pattern.compile("request id: ([0-9a-f]{32})").matcher(first);
            Matcher two = Pattern.compile("request id: ([0-9a-f]{32})").matcher(second);
            assertTrue(one.find(), first);
            assertTrue(two.find(), second);
            assertTrue(!one.group(1).equals(two.group(1)), "two requests, two ids");
        }
    }

    @Test
    void theJsonAccessLogWritesOneObjectPerRequest() throws Exception {
        List<String> messages;
        try (AccessLogLines lines = new AccessLogLines()) {
            try (ProxyHarness logged = ProxyHarness.start("""
                    proxy.routes = [ { prefix = "/", upstream = "%s" } ]
                    proxy.access-log.format = "json"
                    """.formatted(fallback.url("/j/")));
                 RawHttp raw = new RawHttp(logged.port())) {
                raw.send("GET /json HTTP/1.1\r\nHost: j.test\r\nConnection: close\r\n\r\n");
                assertEquals(200, raw.read().status());
            }
            messages = lines.lines();
        }
        assertEquals(1, messages.size());
        com.fasterxml.jackson.databind.JsonNode line = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(messages.get(0));
        assertEquals("GET", line.get("request_method").asText());
        assertEquals("/json", line.get("request_uri").asText());
        assertEquals(200, line.get("status").asInt());
        assertEquals("/", line.get("route").asText());
        assertTrue(line.get("request_id").asText().matches("[0-9a-f]{32}"));
        assertTrue(line.get("request_time_ms").isNumber());
    }
}
