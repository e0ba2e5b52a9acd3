package io.kodiak.config;

import com.typesafe.config.ConfigFactory;
import io.kodiak.http.FieldName;
import io.kodiak.limits.LimitKey;
import io.kodiak.limits.LimitSettings;
import io.kodiak.routing.HeaderVariable;
import io.kodiak.routing.HostPattern;
import io.kodiak.routing.Rewrite;
import io.kodiak.routing.Rewrites;
import io.kodiak.routing.Route;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hosts, header rules, rewrites, limits and the access-log format as the configuration gives
 * them: a valid file loads into routes that carry them, and each mistake is refused under the
 * exact key the user wrote, down to the list entry and the field name.
 */
class RouteRulesConfigTest {

    /** The example of reference.conf (and the issue), with a host-less route beside it. */
    private static final String EXAMPLE = """
            proxy {
              upstreams { orders { servers = ["http://127.0.0.1:8081"] } }
              routes = [
                { host = "api.example.com", prefix = "/v1/", upstream = "http://orders/api/",
                  request-headers  { set { "X-Request-Id" = "${request_id}" }, remove = ["X-Debug"] },
                  response-headers { set { "Strict-Transport-Security" = "max-age=63072000" }, remove = ["Server"] },
                  rewrite = [ { match = "^/v1/users/([0-9]+)$", replace = "/api/user?id=$1" } ],
                  limits { requests-per-second = 100, burst = 50 } }
                { prefix = "/", upstream = "http://127.0.0.1:8080/" }
              ]
              limits { requests-per-second = 10, burst = 20, key = "header:X-Api-Key" }
              access-log.format = "$remote_addr \\"$request\\" $status $request_id \\"$http_user_agent\\""
            }
            """;

    private static ProxyConfig load(String hocon) {
        return ConfigLoader.fromConfig(ConfigFactory.parseString(hocon));
    }

    private static ConfigException rejected(String hocon) {
        return assertThrows(ConfigException.class, () -> load(hocon));
    }

    /** One route (host-less unless {@code extra} says otherwise) with {@code extra} keys. */
    private static String route(String extra) {
        return "proxy.routes = [ { prefix = \"/\", upstream = \"http://127.0.0.1:8080/\", " + extra + " } ]";
    }

    private static ConfigProblem problem(ConfigException e, String key) {
        return e.problems().stream().filter(p -> p.key().equals(key)).findFirst()
                .orElseThrow(() -> new AssertionError("no problem under " + key + " in " + e.getMessage()));
    }

    /** A problem under exactly {@code key}, holding {@code value} and saying {@code expected}. */
    private static void assertProblem(ConfigException e, String key, String value, String expectedFragment) {
        ConfigProblem problem = problem(e, key);
        assertTrue(problem.value().contains(value), problem.toString());
        assertTrue(problem.expected().contains(expectedFragment), problem.toString());
        assertTrue(e.getMessage().contains(key), e.getMessage());
    }

    private static boolean drops(io.kodiak.routing.HeaderRules rules, String name) {
        byte[] bytes = name.getBytes(StandardCharsets.US_ASCII);
        return rules.drops(FieldName.of(bytes, 0, bytes.length), bytes, 0, bytes.length);
    }

    // --------------------------------------------------------------- loading

    @Test
    void theExampleLoadsWithEveryRuleOnItsRoute() throws Exception {
        ProxyConfig config = load(EXAMPLE);
        assertEquals(2, config.routes().size());
        Route api = config.routes().get(0);
        assertEquals(List.of(HostPattern.parse("api.example.com")), api.hosts());
        assertEquals("api.example.com/v1/", api.name());
        assertEquals("orders", api.group());
        // "${request_id}" quoted: a variable of the rule, not a HOCON substitution.
        assertTrue(api.requestHeaders().uses(HeaderVariable.REQUEST_ID));
        assertTrue(drops(api.requestHeaders(), "X-Request-Id"));
        assertTrue(drops(api.requestHeaders(), "x-debug"));
        assertTrue(drops(api.responseHeaders(), "Strict-Transport-Security"));
        assertTrue(drops(api.responseHeaders(), "Server"));
        assertEquals(Rewrites.of(List.of(Rewrite.of("^/v1/users/([0-9]+)$", "/api/user?id=$1"))), api.rewrites());
        assertEquals(new Rewrites.Target("/api/user", "id=7"), api.upstreamTarget("/v1/users/7", "x=1"));
        assertEquals(new LimitSettings(100, 50, LimitKey.CLIENT_ADDRESS, 65536), api.limits());

        Route fallback = config.routes().get(1);
        assertTrue(fallback.hosts().isEmpty());
        assertTrue(fallback.requestHeaders().isEmpty());
        assertTrue(fallback.rewrites().isEmpty());
        assertFalse(fallback.limits().isOn());

        assertEquals(new LimitSettings(10, 20, LimitKey.parse("header:x-api-key"), 65536), config.limits());
        assertArrayEquals(new String[] {"user-agent"}, config.accessLog().requestHeaders());
        assertTrue(config.accessLog().uses(io.kodiak.log.AccessLogFormat.Variable.REQUEST_ID));
    }

    @Test
    void withoutLimitsOrAFormatTheDefaultsApply() {
        ProxyConfig config = load(route("host = \"a.example.com\""));
        assertEquals(LimitSettings.OFF, config.limits());
        assertFalse(config.limits().isOn());
        assertEquals(io.kodiak.log.AccessLogFormat.DEFAULT, config.accessLog().toString());
    }

    @Test
    void theJsonFormatIsAccepted() {
        assertTrue(load("proxy.access-log.format = json").accessLog().isJson());
    }

    @Test
    void aRoutesLimitTakesReferenceDefaultsNotProxyLimitsValues() {
        // Documented: keys a route's limits block leaves out come from reference.conf.
        ProxyConfig config = load("proxy.limits { requests-per-second = 1, burst = 7, key = \"header:X-Key\", max-keys = 10 }\n"
                + route("limits { requests-per-second = 2 }"));
        assertEquals(new LimitSettings(2, 0, LimitKey.CLIENT_ADDRESS, 65536), config.routes().get(0).limits());
    }

    @Test
    void aFractionalRateIsAccepted() {
        assertEquals(0.5, load("proxy.limits.requests-per-second = 0.5").limits().requestsPerSecond());
    }

    @Test
    void theSamePrefixOnDifferentHostsIsAccepted() {
        ProxyConfig config = load("""
                proxy.routes = [
                  { host = "a.example.com", prefix = "/api/", upstream = "http://127.0.0.1:8081/" }
                  { host = "*.example.com", prefix = "/api/", upstream = "http://127.0.0.1:8082/" }
                  { prefix = "/api/", upstream = "http://127.0.0.1:8083/" }
                ]
                """);
        assertEquals(3, config.routes().size());
    }

    @Test
    void aHostListIsReadWithEachNameNormalised() throws Exception {
        ProxyConfig config = load(route("host = [\"API.Example.com.\", \"*.example.org\", \"api.example.com\"]"));
        // The repeated name, once normalised, is kept once.
        assertEquals(List.of(HostPattern.parse("api.example.com"), HostPattern.parse("*.example.org")),
                config.routes().get(0).hosts());
    }

    // ------------------------------------------------------------- refusals

    @Test
    void aHopByHopFieldIsRefusedUnderItsRuleAndName() {
        ConfigException e = rejected(route("request-headers { set { Connection = \"close\" } }"));
        assertProblem(e, "proxy.routes[0].request-headers.set.Connection", "close", "Connection");
    }

    @Test
    void eachKindOfRuleNamesItsOwnKey() {
        assertProblem(rejected(route("response-headers { add { Transfer-Encoding = \"chunked\" } }")),
                "proxy.routes[0].response-headers.add.Transfer-Encoding", "chunked", "hop-by-hop");
        assertProblem(rejected(route("request-headers { remove = [\"Content-Length\"] }")),
                "proxy.routes[0].request-headers.remove", "Content-Length", "framing");
        assertProblem(rejected(route("request-headers { add { Host = \"x\" } }")),
                "proxy.routes[0].request-headers.add.Host", "x", "Host under set only");
        assertProblem(rejected(route("request-headers { set { Expect = \"100-continue\" } }")),
                "proxy.routes[0].request-headers.set.Expect", "100-continue", "Expect");
    }

    @Test
    void aResponseMayNameExpectAndARequestMaySetHost() {
        Route route = load(route("request-headers { set { Host = \"backend.internal\" } }, "
                + "response-headers { set { Expect = \"x\" } }")).routes().get(0);
        assertTrue(route.requestHeaders().drops(FieldName.HOST));
    }

    @Test
    void anUnknownVariableInAHeaderValueIsNamed() {
        ConfigException e = rejected(route("request-headers { set { X-Id = \"${nope}\" } }"));
        assertProblem(e, "proxy.routes[0].request-headers.set.X-Id", "${nope}", "${nope}");
    }

    @Test
    void anUnquotedVariableIsAHoconSubstitutionAndRefused() {
        // ${request_id} outside quotes is HOCON's, not Kodiak's: the load must not go on without it.
        ConfigException e = rejected(route("request-headers { set { X-Id = ${request_id} } }"));
        assertFalse(e.problems().isEmpty());
    }

    @Test
    void removingANameAlsoSetIsRefused() {
        assertProblem(rejected(route("request-headers { set { X-A = \"1\" }, remove = [\"x-a\"] }")),
                "proxy.routes[0].request-headers.remove", "x-a", "set");
    }

    @Test
    void aNameGivenTwiceInOneRuleIsRefused() {
        // Whichever of the two HOCON hands over second is the one named.
        ConfigException e = rejected(route("response-headers { set { X-A = \"1\", x-a = \"2\" } }"));
        assertTrue(e.problems().stream().anyMatch(p -> p.key().equalsIgnoreCase("proxy.routes[0].response-headers.set.x-a")
                && p.expected().contains("once")), e.getMessage());
    }

    @Test
    void anUnknownHeaderRuleKeyIsRefused() {
        assertProblem(rejected(route("request-headers { replace { X-A = \"1\" } }")),
                "proxy.routes[0].request-headers.replace", "X-A", "set, add, remove");
    }

    @Test
    void aBadExpressionIsRefusedUnderMatch() {
        ConfigException e = rejected(route("rewrite = [ { match = \"^/(unclosed\", replace = \"/x\" } ]"));
        assertProblem(e, "proxy.routes[0].rewrite[0].match", "^/(unclosed", "regular expression");
    }

    @Test
    void aBadReplacementIsRefusedUnderReplace() {
        assertProblem(rejected(route("rewrite = [ { match = \"^/(a)$\", replace = \"x/$1\" } ]")),
                "proxy.routes[0].rewrite[0].replace", "x/$1", "starting with /");
        assertProblem(rejected(route("rewrite = [ { match = \"^/(a)$\", replace = \"/ok\" }, "
                        + "{ match = \"^/(a)/(b)$\", replace = \"/$3\" } ]")),
                "proxy.routes[0].rewrite[1].replace", "/$3", "2 group");
    }

    @Test
    void aRewriteWithoutBothKeysIsRefused() {
        assertProblem(rejected(route("rewrite = [ { match = \"^/a$\" } ]")), "proxy.routes[0].rewrite[0]", "match",
                "both match and replace");
    }

    @Test
    void aBadHostIsRefusedUnderHost() {
        assertProblem(rejected(route("host = \"foo.*.com\"")), "proxy.routes[0].host", "foo.*.com", "wildcard");
        assertProblem(rejected(route("host = \"example.com:80\"")), "proxy.routes[0].host", "example.com:80", "without a port");
        assertProblem(rejected(route("host = []")), "proxy.routes[0].host", "[]", "leave host out");
        assertProblem(rejected(route("host = \"*\"")), "proxy.routes[0].host", "*", "leave host out");
    }

    @Test
    void theSameHostAndPrefixTwiceIsRefusedOnTheSecondRoute() {
        ConfigException e = rejected("""
                proxy.routes = [
                  { host = "api.example.com", prefix = "/v1/", upstream = "http://127.0.0.1:8081/" }
                  { host = "API.example.com.", prefix = "/v1/", upstream = "http://127.0.0.1:8082/" }
                ]
                """);
        assertProblem(e, "proxy.routes[1].prefix", "/v1/", "api.example.com");
    }

    @Test
    void theSamePrefixTwiceWithoutAHostIsRefused() {
        ConfigException e = rejected("""
                proxy.routes = [
                  { prefix = "/v1/", upstream = "http://127.0.0.1:8081/" }
                  { prefix = "/v1/", upstream = "http://127.0.0.1:8082/" }
                ]
                """);
        assertProblem(e, "proxy.routes[1].prefix", "/v1/", "without a host");
    }

    @Test
    void aHostSharedThroughAListStillCountsAsTheSameHost() {
        ConfigException e = rejected("""
                proxy.routes = [
                  { host = ["a.example.com", "b.example.com"], prefix = "/", upstream = "http://127.0.0.1:8081/" }
                  { host = "b.example.com", prefix = "/", upstream = "http://127.0.0.1:8082/" }
                ]
                """);
        assertProblem(e, "proxy.routes[1].prefix", "/", "b.example.com");
    }

    @Test
    void aNegativeRateIsRefused() {
        assertProblem(rejected("proxy.limits.requests-per-second = -1"), "proxy.limits.requests-per-second", "-1",
                "0 (off) or a rate");
    }

    @Test
    void aRateThatIsNoNumberIsRefused() {
        assertProblem(rejected("proxy.limits.requests-per-second = fast"), "proxy.limits.requests-per-second", "fast",
                "0 (off) or a rate");
    }

    @Test
    void aKeyOtherThanTheAddressOrAHeaderIsRefused() {
        assertProblem(rejected("proxy.limits { requests-per-second = 1, key = \"cookie:x\" }"), "proxy.limits.key",
                "cookie:x", "header:NAME");
    }

    @Test
    void aRoutesLimitIsCheckedUnderTheRoute() {
        assertProblem(rejected(route("limits { requests-per-second = 5, burst = -1 }")), "proxy.routes[0].limits.burst",
                "-1", "0 to 1000000");
        assertProblem(rejected(route("limits { requests-per-second = 5, max-keys = 0 }")),
                "proxy.routes[0].limits.max-keys", "0", "from 1");
        assertProblem(rejected(route("limits = 5")), "proxy.routes[0].limits", "5", "requests-per-second");
    }

    @Test
    void anUnknownLimitsKeyIsRefused() {
        assertProblem(rejected("proxy.limits { requests-per-second = 1, brust = 5 }"), "proxy.limits.brust", "5",
                "burst");
        assertProblem(rejected(route("limits { rate = 5 }")), "proxy.routes[0].limits.rate", "5", "requests-per-second");
    }

    @Test
    void anUnknownVariableInTheAccessLogFormatIsRefusedByName() {
        ConfigException e = rejected("proxy.access-log.format = \"$status $nope\"");
        ConfigProblem problem = problem(e, "proxy.access-log.format");
        assertTrue(problem.expected().contains("$nope"), problem.toString());
        assertTrue(e.getMessage().contains("$nope"), e.getMessage());
    }

    @Test
    void everyProblemOfTheNewKeysIsReportedAtOnce() {
        ConfigException e = rejected("""
                proxy.routes = [ { host = "-bad", prefix = "/", upstream = "http://127.0.0.1:8080/",
                                   request-headers { set { TE = "trailers" } },
                                   rewrite = [ { match = "(", replace = "/" } ] } ]
                proxy.limits.burst = -3
                proxy.access-log.format = "$nope"
                """);
        for (String key : List.of("proxy.routes[0].host", "proxy.routes[0].request-headers.set.TE",
                "proxy.routes[0].rewrite[0].match", "proxy.limits.burst", "proxy.access-log.format")) {
            problem(e, key);
        }
    }

    @Test
    void aRateBelowTheFloorIsRefused() {
        // 0.0001 per second with a large burst would overflow the bucket's arithmetic.
        assertProblem(rejected("proxy.limits.requests-per-second = 0.0001"), "proxy.limits.requests-per-second",
                "1.0E-4", "from 0.001");
    }

    @Test
    void aRoutesLimitWithoutARateIsRefused() {
        assertProblem(rejected("proxy.routes = [ { prefix = \"/\", upstream = \"http://127.0.0.1:8080/\", "
                + "limits { key = \"header:X-Api-Key\" } } ]"), "proxy.routes[0].limits.requests-per-second",
                "(missing)", "a rate");
    }

    @Test
    void anUpstreamPathWithADotSegmentIsRefused() {
        assertProblem(rejected("proxy.routes = [ { prefix = \"/\", upstream = \"http://127.0.0.1:8080/a/../b/\" } ]"),
                "proxy.routes[0].upstream", "/a/../b/", "without . or ..");
    }

    @Test
    void aLiteralHostValueMustBeAHost() {
        assertProblem(rejected("proxy.routes = [ { prefix = \"/\", upstream = \"http://127.0.0.1:8080/\", "
                + "request-headers { set { \"Host\" = \"a b, c\" } } } ]"),
                "proxy.routes[0].request-headers.set.Host", "a b, c", "optional :port");
    }

    @Test
    void aReplacementWithADotSegmentIsRefused() {
        assertProblem(rejected("proxy.routes = [ { prefix = \"/\", upstream = \"http://127.0.0.1:8080/\", "
                + "rewrite = [ { match = \"^/x$\", replace = \"/a/../b\" } ] } ]"),
                "proxy.routes[0].rewrite[0].replace", "/a/../b", "without . or ..");
    }
}
