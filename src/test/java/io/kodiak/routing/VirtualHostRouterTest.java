package io.kodiak.routing;

import io.kodiak.limits.LimitSettings;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Virtual hosts as nginx's server_name picks a server block: the exact name, else the longest
 * matching leading wildcard, else the default (host-less) routes; then the longest prefix among
 * the chosen routes only.
 */
class VirtualHostRouterTest {

    /** A route labelled by its upstream URL, so a test can say which one answered. */
    private static Route route(String label, String prefix, String... hosts) throws HostPattern.Invalid {
        List<HostPattern> patterns = new ArrayList<>();
        for (String host : hosts) {
            patterns.add(HostPattern.parse(host));
        }
        UpstreamTarget target = new UpstreamTarget("127.0.0.1", 8080, "/" + label);
        return new Route(patterns, prefix, target, false, label, true, target.originKey(), HeaderRules.NONE,
                HeaderRules.NONE, Rewrites.NONE, LimitSettings.OFF);
    }

    private static String label(Route route) {
        return route == null ? null : route.upstreamUrl();
    }

    private static Router router(Route... routes) {
        return new Router(List.of(routes));
    }

    // ------------------------------------------------------------ precedence

    @Test
    void anExactHostBeatsAWildcardThatAlsoMatchesIt() throws Exception {
        Router router = router(route("wild", "/", "*.example.com"), route("exact", "/", "api.example.com"),
                route("default", "/"));
        assertEquals("exact", label(router.match("api.example.com", "/x")));
        assertEquals("wild", label(router.match("www.example.com", "/x")));
        assertEquals("default", label(router.match("other.test", "/x")));
    }

    @Test
    void theLongestWildcardSuffixWinsWhateverTheOrderOfTheRoutes() throws Exception {
        // Given in both orders: the choice must come from the suffix length, not the list.
        for (boolean shortFirst : new boolean[] {true, false}) {
            Route broad = route("broad", "/", "*.example.org");
            Route narrow = route("narrow", "/", "*.eu.example.org");
            Router router = shortFirst ? router(broad, narrow) : router(narrow, broad);
            assertEquals("narrow", label(router.match("shop.eu.example.org", "/")));
            assertEquals("broad", label(router.match("shop.us.example.org", "/")));
            // "eu.example.org" itself is not under *.eu.example.org, but is under *.example.org.
            assertEquals("broad", label(router.match("eu.example.org", "/")));
        }
    }

    @Test
    void aWildcardDoesNotMatchTheBareDomain() throws Exception {
        Router router = router(route("wild", "/", "*.example.org"), route("default", "/"));
        assertEquals("default", label(router.match("example.org", "/")));
    }

    @Test
    void aWildcardDoesNotMatchANameThatMerelyEndsWithTheSameLetters() throws Exception {
        // "badexample.org" ends in "example.org" but not in ".example.org".
        Router router = router(route("wild", "/", "*.example.org"), route("default", "/"));
        assertEquals("default", label(router.match("badexample.org", "/")));
    }

    @Test
    void aWildcardMatchesAnyNumberOfLeadingLabels() throws Exception {
        Router router = router(route("wild", "/", "*.example.org"));
        assertEquals("wild", label(router.match("a.example.org", "/")));
        assertEquals("wild", label(router.match("a.b.example.org", "/")));
        assertEquals("wild", label(router.match("x.y.z.example.org", "/")));
    }

    @Test
    void hostlessRoutesServeEveryNameNoRouteNames() throws Exception {
        Router router = router(route("api", "/", "api.example.com"), route("default", "/"));
        assertEquals("default", label(router.match("unknown.example.net", "/anything")));
        assertEquals("default", label(router.match("127.0.0.1", "/anything")));
    }

    @Test
    void aHostWithRoutesDoesNotFallBackToHostlessOnesWhenNoPrefixMatches() throws Exception {
        // As an nginx server block does not: the host found its routes, so the answer is 404.
        Router router = router(route("api", "/v1/", "api.example.com"), route("default", "/"));
        assertNull(router.match("api.example.com", "/v2/users"));
        assertEquals("api", label(router.match("api.example.com", "/v1/users")));
    }

    @Test
    void aWildcardHostDoesNotFallBackToHostlessRoutesEither() throws Exception {
        Router router = router(route("wild", "/v1/", "*.example.org"), route("default", "/"));
        assertNull(router.match("a.example.org", "/other"));
    }

    @Test
    void anExactHostDoesNotFallBackToAMatchingWildcardsRoutes() throws Exception {
        // The most specific host decides the route set; a less specific one is not consulted.
        Router router = router(route("exact", "/v1/", "api.example.org"), route("wild", "/", "*.example.org"));
        assertNull(router.match("api.example.org", "/v2"));
    }

    @Test
    void theLongestPrefixWinsWithinTheHostsRoutes() throws Exception {
        Router router = router(route("root", "/", "api.example.com"), route("v1", "/v1/", "api.example.com"),
                route("v1users", "/v1/users/", "api.example.com"), route("default-long", "/v1/users/admin/"));
        assertEquals("v1users", label(router.match("api.example.com", "/v1/users/admin/x")),
                "the host-less route's longer prefix must not be considered for a named host");
        assertEquals("v1", label(router.match("api.example.com", "/v1/orders")));
        assertEquals("root", label(router.match("api.example.com", "/")));
    }

    @Test
    void aNullHostUsesTheHostlessRoutes() throws Exception {
        Router router = router(route("api", "/", "api.example.com"), route("default", "/"));
        assertEquals("default", label(router.match(null, "/")));
    }

    @Test
    void aNullHostWithoutHostlessRoutesMatchesNothing() throws Exception {
        Router router = router(route("api", "/", "api.example.com"));
        assertNull(router.match(null, "/"));
        assertNull(router.match("other.example.com", "/"));
    }

    @Test
    void aRouteWithSeveralHostsServesEachOfThem() throws Exception {
        Router router = router(route("both", "/", "a.example.com", "*.b.example.com"), route("default", "/"));
        assertEquals("both", label(router.match("a.example.com", "/")));
        assertEquals("both", label(router.match("x.b.example.com", "/")));
        assertEquals("default", label(router.match("b.example.com", "/")));
    }

    @Test
    void theSamePrefixOnDifferentHostsIsTwoRoutes() throws Exception {
        Router router = router(route("one", "/api/", "one.example.com"), route("two", "/api/", "two.example.com"));
        assertEquals("one", label(router.match("one.example.com", "/api/x")));
        assertEquals("two", label(router.match("two.example.com", "/api/x")));
    }

    @Test
    void ipv6LiteralHostsMatchTheirBracketedForm() throws Exception {
        Router router = router(route("v6", "/", "[::1]"), route("default", "/"));
        assertEquals("v6", label(router.match(HostName.of("[::1]:8080"), "/")));
    }

    @Test
    void withoutAnyHostTheRouterIgnoresTheHostItIsGiven() throws Exception {
        Router router = router(route("root", "/"), route("api", "/api/"));
        assertFalse(router.usesHosts());
        assertEquals("api", label(router.match("whatever.example.com", "/api/x")));
        assertEquals("api", label(router.match(null, "/api/x")));
    }

    @Test
    void usesHostsWhenAnExactOrAWildcardHostIsNamed() throws Exception {
        assertTrue(router(route("a", "/", "api.example.com")).usesHosts());
        assertTrue(router(route("a", "/", "*.example.com")).usesHosts());
        assertFalse(router(route("a", "/")).usesHosts());
    }

    @Test
    void matchWithoutAHostUsesOnlyTheHostlessRoutes() throws Exception {
        Router router = router(route("api", "/", "api.example.com"));
        assertNull(router.match(null, "/"));
    }

    @Test
    void aRouteIsNamedByItsHostsThenItsPrefix() throws Exception {
        assertEquals("/v1/", route("x", "/v1/").name());
        assertEquals("api.example.com/v1/", route("x", "/v1/", "api.example.com").name());
        assertEquals("a.example.com,*.b.example.com/", route("x", "/", "a.example.com", "*.b.example.com").name());
    }

    // ------------------------------------------------------------- HostName

    @Test
    void hostNameIsLowerCased() {
        assertEquals("example.com", HostName.of("EXAMPLE.com"));
    }

    @Test
    void hostNameDropsThePort() {
        assertEquals("example.com", HostName.of("example.com:8080"));
    }

    @Test
    void hostNameDropsOneTrailingDot() {
        // "example.com." is the same name, fully qualified.
        assertEquals("example.com", HostName.of("example.com."));
        assertEquals("example.com", HostName.of("example.com.:443"));
    }

    @Test
    void hostNameKeepsTheBracketsOfAnIpv6LiteralAndDropsItsPort() {
        assertEquals("[::1]", HostName.of("[::1]:80"));
        assertEquals("[::1]", HostName.of("[::1]"));
    }

    @Test
    void hostNameLowerCasesAnIpv6Literal() {
        assertEquals("[fe80::1]", HostName.of("[FE80::1]"));
    }

    @Test
    void anEmptyHostOrOneWithOnlyAPortIsNoName() {
        assertNull(HostName.of(""));
        assertNull(HostName.of(":80"));
    }

    @Test
    void anEmptyPortAfterTheNameIsIgnored() {
        assertEquals("example.com", HostName.of("example.com:"));
    }

    @Test
    void hostNameReadsOnlyTheGivenRangeOfTheArray() {
        byte[] head = "Host: API.Example.COM:8443\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        assertEquals("api.example.com", HostName.of(head, 6, 26));
    }

    // ----------------------------------------------------------- HostPattern

    @Test
    void aLoneWildcardOrAnEmptyHostIsRefused() {
        // Leaving host out is how a route serves every name.
        assertThrows(HostPattern.Invalid.class, () -> HostPattern.parse("*"));
        assertThrows(HostPattern.Invalid.class, () -> HostPattern.parse(""));
        assertThrows(HostPattern.Invalid.class, () -> HostPattern.parse("   "));
    }

    @Test
    void anEmptyLabelIsRefused() {
        assertThrows(HostPattern.Invalid.class, () -> HostPattern.parse("a..b"));
        assertThrows(HostPattern.Invalid.class, () -> HostPattern.parse(".example.com"));
        assertThrows(HostPattern.Invalid.class, () -> HostPattern.parse("example.com.."));
    }

    @Test
    void aLeadingWildcardIsAccepted() throws Exception {
        HostPattern pattern = HostPattern.parse("*.example.org");
        assertTrue(pattern.isWildcard());
        assertEquals("*.example.org", pattern.name());
        assertEquals(".example.org", pattern.suffix());
    }

    @Test
    void aWildcardAnywhereButTheFirstLabelIsRefused() {
        assertThrows(HostPattern.Invalid.class, () -> HostPattern.parse("foo.*.com"));
        assertThrows(HostPattern.Invalid.class, () -> HostPattern.parse("example.*"));
        assertThrows(HostPattern.Invalid.class, () -> HostPattern.parse("*.*.example.com"));
        assertThrows(HostPattern.Invalid.class, () -> HostPattern.parse("*example.com"));
    }

    @Test
    void aPortIsRefused() {
        // Routes match the name only; the port is the listener's business.
        assertThrows(HostPattern.Invalid.class, () -> HostPattern.parse("example.com:80"));
        assertThrows(HostPattern.Invalid.class, () -> HostPattern.parse("[::1]:80"));
    }

    @Test
    void aPatternIsNormalisedAsRequestsAreCompared() throws Exception {
        HostPattern pattern = HostPattern.parse("API.Example.COM.");
        assertEquals("api.example.com", pattern.name());
        assertFalse(pattern.isWildcard());
        assertEquals(HostName.of("Api.Example.Com.:443"), pattern.name());
    }

    @Test
    void ipv6AndIpv4AddressesAreAccepted() throws Exception {
        assertEquals("[::1]", HostPattern.parse("[::1]").name());
        assertEquals("[fe80::1]", HostPattern.parse("[FE80::1]").name());
        assertEquals("10.0.0.1", HostPattern.parse("10.0.0.1").name());
    }

    @Test
    void malformedIpv6LiteralsAreRefused() {
        assertThrows(HostPattern.Invalid.class, () -> HostPattern.parse("[::1"));
        assertThrows(HostPattern.Invalid.class, () -> HostPattern.parse("[]"));
        assertThrows(HostPattern.Invalid.class, () -> HostPattern.parse("[zz::1]"));
    }

    @Test
    void aLabelMayNotStartOrEndWithAHyphen() {
        assertThrows(HostPattern.Invalid.class, () -> HostPattern.parse("-bad.com"));
        assertThrows(HostPattern.Invalid.class, () -> HostPattern.parse("bad-.com"));
    }

    @Test
    void charactersOutsideHostNamesAreRefused() {
        for (String text : List.of("exa mple.com", "example.com/", "user@example.com", "exämple.com")) {
            assertThrows(HostPattern.Invalid.class, () -> HostPattern.parse(text), text);
        }
    }

    @Test
    void aLabelLongerThan63CharactersIsRefused() throws Exception {
        String label63 = "a".repeat(63);
        assertEquals(label63 + ".com", HostPattern.parse(label63 + ".com").name());
        assertThrows(HostPattern.Invalid.class, () -> HostPattern.parse(label63 + "a.com"));
    }
}
