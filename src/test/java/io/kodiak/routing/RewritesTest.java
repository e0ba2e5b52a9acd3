package io.kodiak.routing;

import io.kodiak.limits.LimitSettings;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * nginx's {@code rewrite ... break}: the first expression found in the path replaces the whole
 * path; $1..$9 are its groups; the client's query is kept unless the replacement has a "?" of its
 * own, and a bare trailing "?" sends none.
 */
class RewritesTest {

    private static Rewrites rewrites(String... matchThenReplace) throws Rewrite.Invalid {
        List<Rewrite> rules = new ArrayList<>();
        for (int i = 0; i < matchThenReplace.length; i += 2) {
            rules.add(Rewrite.of(matchThenReplace[i], matchThenReplace[i + 1]));
        }
        return Rewrites.of(rules);
    }

    private static Route route(String prefix, String basePath, Rewrites rewrites) {
        UpstreamTarget target = new UpstreamTarget("127.0.0.1", 8080, basePath);
        return new Route(List.of(), prefix, target, false, "http://127.0.0.1:8080" + basePath, true, target.originKey(),
                HeaderRules.NONE, HeaderRules.NONE, rewrites, LimitSettings.OFF);
    }

    // -------------------------------------------------------------- applying

    @Test
    void theWholePathIsReplacedNotJustTheMatchedPart() throws Exception {
        // A search, not a full match: "/users/" is found inside the path, and the whole path goes.
        Rewrites rules = rewrites("/users/", "/people");
        assertEquals(new Rewrites.Target("/people", null), rules.apply("/api/users/7", null));
    }

    @Test
    void groupsAreSubstituted() throws Exception {
        Rewrites rules = rewrites("^/v1/users/([0-9]+)/orders/([a-z]+)$", "/api/$2/by-user/$1");
        assertEquals(new Rewrites.Target("/api/open/by-user/42", null), rules.apply("/v1/users/42/orders/open", null));
    }

    @Test
    void groupZeroIsTheWholeMatch() throws Exception {
        assertEquals("/x/abc", rewrites("[a-c]+", "/x/$0").apply("/abc", null).path());
    }

    @Test
    void anUnmatchedOptionalGroupIsEmpty() throws Exception {
        Rewrites rules = rewrites("^/a(/b)?$", "/z$1");
        assertEquals("/z", rules.apply("/a", null).path());
        assertEquals("/z/b", rules.apply("/a/b", null).path());
    }

    @Test
    void theFirstRuleFoundWinsEvenIfALaterOneIsMoreSpecific() throws Exception {
        Rewrites rules = rewrites("^/api/", "/first", "^/api/v1/", "/second");
        assertEquals("/first", rules.apply("/api/v1/x", null).path());
    }

    @Test
    void laterRulesAreTriedWhenEarlierOnesAreNotFound() throws Exception {
        Rewrites rules = rewrites("^/nope", "/first", "^/api/(.*)$", "/second/$1");
        assertEquals("/second/v1/x", rules.apply("/api/v1/x", null).path());
    }

    @Test
    void theClientsQueryIsKeptWhenTheReplacementHasNone() throws Exception {
        assertEquals(new Rewrites.Target("/new", "a=1&b=2"), rewrites("^/old$", "/new").apply("/old", "a=1&b=2"));
    }

    @Test
    void aReplacementsOwnQueryReplacesTheClients() throws Exception {
        Rewrites rules = rewrites("^/v1/users/([0-9]+)$", "/api/user?id=$1");
        assertEquals(new Rewrites.Target("/api/user", "id=7"), rules.apply("/v1/users/7", "debug=1"));
        assertEquals(new Rewrites.Target("/api/user", "id=7"), rules.apply("/v1/users/7", null));
    }

    @Test
    void aBareTrailingQuestionMarkDropsTheQuery() throws Exception {
        assertEquals(new Rewrites.Target("/new", null), rewrites("^/old$", "/new?").apply("/old", "secret=1"));
    }

    @Test
    void theQueryIsNotSearched() throws Exception {
        // The path alone is matched: a client cannot steer a rule through its query string.
        assertNull(rewrites("secret", "/x").apply("/public", "secret=1"));
    }

    @Test
    void noRuleFoundIsNull() throws Exception {
        assertNull(rewrites("^/v1/", "/x").apply("/v2/y", "q=1"));
    }

    @Test
    void withoutARuleFoundTheRouteFallsBackToItsPrefixMapping() throws Exception {
        Route route = route("/api/", "/backend/", rewrites("^/api/legacy/(.*)$", "/v0/$1"));
        assertEquals(new Rewrites.Target("/backend/users", "a=1"), route.upstreamTarget("/api/users", "a=1"));
        assertEquals(new Rewrites.Target("/v0/thing", "a=1"), route.upstreamTarget("/api/legacy/thing", "a=1"));
    }

    @Test
    void aRouteWithoutRulesUsesItsPrefixMapping() {
        Route route = route("/api/", "/backend/", Rewrites.NONE);
        assertEquals(new Rewrites.Target("/backend/x", null), route.upstreamTarget("/api/x", null));
    }

    @Test
    void noRulesIsNone() {
        assertSame(Rewrites.NONE, Rewrites.of(List.of()));
        assertTrue(Rewrites.NONE.isEmpty());
    }

    @Test
    void rulesAreEqualByTheirText() throws Exception {
        // A reload compares routes, so an unchanged rule must equal its re-read self.
        assertEquals(rewrites("^/a$", "/b"), rewrites("^/a$", "/b"));
        assertFalse(rewrites("^/a$", "/b").equals(rewrites("^/a$", "/c")));
    }

    // -------------------------------------------------------------- refusals

    @Test
    void anInvalidExpressionIsRefusedAsTheMatchsFault() {
        Rewrite.Invalid e = assertThrows(Rewrite.Invalid.class, () -> Rewrite.of("^/(unclosed", "/x"));
        assertTrue(e.inMatch);
        assertTrue(e.getMessage().contains("regular expression"), e.getMessage());
    }

    @Test
    void aReplacementNotStartingWithASlashIsRefused() {
        for (String replace : List.of("x/y", "", "$1", "?a=1", "http://evil.example/")) {
            Rewrite.Invalid e = assertThrows(Rewrite.Invalid.class, () -> Rewrite.of("^/(a)", replace), replace);
            assertFalse(e.inMatch, replace);
        }
    }

    @Test
    void aGroupTheExpressionDoesNotHaveIsRefused() {
        Rewrite.Invalid e = assertThrows(Rewrite.Invalid.class, () -> Rewrite.of("^/(a)/(b)$", "/$1/$2/$3"));
        assertFalse(e.inMatch);
        assertTrue(e.getMessage().contains("2 group"), e.getMessage());
    }

    @Test
    void aDollarNotFollowedByADigitIsRefused() {
        assertThrows(Rewrite.Invalid.class, () -> Rewrite.of("^/(a)$", "/x/$"));
        assertThrows(Rewrite.Invalid.class, () -> Rewrite.of("^/(a)$", "/x/$a"));
    }

    @Test
    void charactersNotAllowedInATargetAreRefused() {
        // A space, a quote or a CR would change the request line sent upstream.
        for (String replace : List.of("/a b", "/a\"b", "/a\r\nHost: evil", "/a#frag", "/a<b>", "/caf\u00e9", "/a\\b")) {
            Rewrite.Invalid e = assertThrows(Rewrite.Invalid.class, () -> Rewrite.of("^/", replace), replace);
            assertFalse(e.inMatch, replace);
        }
    }

    @Test
    void pathAndQueryPunctuationIsAllowed() throws Exception {
        Rewrite rule = Rewrite.of("^/(.*)$", "/a-b._~!&'()*+,;=:@/%20?x=$1&y=2");
        assertEquals("/a-b._~!&'()*+,;=:@/%20?x=$1&y=2", rule.replace());
    }

    // --------------------------------------------------------------- budget

    @Test
    void catastrophicBacktrackingGivesUpInsteadOfHoldingTheThread() throws Exception {
        // Exponential in the path's length without the budget: the budget must end it.
        Rewrites rules = rewrites("^/(a|aa)+$", "/x");
        String path = "/" + "a".repeat(5000) + "b";
        assertThrows(Rewrites.TooCostly.class, () -> rules.apply(path, null));
    }

    @Test
    void catastrophicBacktrackingOnAShortPathGivesUpToo() throws Exception {
        // (.*a){12} backtracks polynomially with a high degree (JDK 17 memoises simpler loops such
        // as (a+)+); on a 25-character path it reads far more than the budget, and the path is
        // short enough that recursion depth plays no part: only the budget can stop it.
        Rewrites rules = rewrites("^/(.*a){12}$", "/x");
        String path = "/" + "a".repeat(25) + "!";
        assertThrows(Rewrites.TooCostly.class, () -> rules.apply(path, null));
    }

    @Test
    void theBudgetIsSharedByAllTheRulesOfARequest() throws Exception {
        // On this path one such rule reads about 750,000 characters (under the 2,000,000 budget),
        // so one rule alone is let through; four in a row must together exceed it. Were the budget
        // per rule, a route could multiply its cost by its number of rules.
        String path = "/" + "a".repeat(17) + "!";
        assertNull(rewrites("^/(.*a){12}$", "/x").apply(path, null), "one rule alone fits the budget");
        Rewrites four = rewrites("^/(.*a){12}$", "/w", "^/(.*a){12}$", "/x", "^/(.*a){12}$", "/y",
                "^/(.*a){12}$", "/z");
        assertThrows(Rewrites.TooCostly.class, () -> four.apply(path, null));
    }

    @Test
    void aLongPathMatchedByAnAlternationInALoopIsRewrittenOrRefusedNeverAStackOverflow() throws Exception {
        // java.util.regex recurses once per iteration of a loop over an alternation, so a path of a
        // few thousand characters (well within max-header-size = 8k) can overflow an I/O thread's
        // stack while reading far less than the budget. The caller (Admission) turns only
        // TooCostly into an answer; a StackOverflowError must not escape instead.
        Rewrites rules = rewrites("^/((?:[a-z0-9]|/)+)$", "/x/$1");
        String path = "/" + "abcdefgh/".repeat(600);
        Rewrites.Target target;
        try {
            target = rules.apply(path, null);
        } catch (Rewrites.TooCostly refused) {
            return;
        } catch (StackOverflowError e) {
            throw new AssertionError("matching a " + path.length() + "-character path overflowed the stack"
                    + " instead of ending in a rewrite or Rewrites.TooCostly");
        }
        assertEquals("/x" + path, target.path());
    }

    @Test
    void anOrdinaryLongPathStaysWithinTheBudget() throws Exception {
        // Linear matching of an 8 KiB path must never be refused.
        Rewrites rules = rewrites("^/static/([a-z0-9/]+)\\.css$", "/assets/$1.css", "^/api/(.*)$", "/v2/$1");
        String path = "/api/" + "segment/".repeat(1000);
        assertEquals("/v2/" + "segment/".repeat(1000), rules.apply(path, null).path());
    }

    @Test
    void aGroupWrittenIntoTheQueryCannotAddParameters() throws Exception {
        Rewrites rules = Rewrites.of(List.of(Rewrite.of("^/u/(.*)$", "/user?id=$1")));
        assertEquals(new Rewrites.Target("/user", "id=1%26admin%3D1"), rules.apply("/u/1&admin=1", null));
        // In the path, the group is written as it came.
        Rewrites inPath = Rewrites.of(List.of(Rewrite.of("^/u/(.*)$", "/user/$1")));
        assertEquals(new Rewrites.Target("/user/a;b=c", null), inPath.apply("/u/a;b=c", null));
    }

    @Test
    void onlyAsciiDigitsNameAGroup() {
        assertThrows(Rewrite.Invalid.class, () -> Rewrite.of("^/(x)$", "/y/$\u0663"));
    }
}
