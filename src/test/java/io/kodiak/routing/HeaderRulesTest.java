package io.kodiak.routing;

import io.kodiak.http.FieldName;
import io.kodiak.http.HeadWriter;
import org.glassfish.grizzly.memory.MemoryManager;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * set replaces, add appends, remove deletes; names that belong to a connection (framing,
 * hop-by-hop) or to Kodiak (a request's Expect) are refused, and so is any value that could
 * break out of its field line.
 */
class HeaderRulesTest {
    private static final HeaderVariable.Values VALUES = variable -> switch (variable) {
        case REQUEST_ID -> "0123456789abcdef0123456789abcdef";
        case CLIENT_ADDR -> "192.0.2.7";
        case HOST -> "api.example.com";
        case SCHEME -> "https";
    };

    private static HeaderRules rules(Map<String, String> set, List<Map.Entry<String, String>> add, List<String> remove,
                                     boolean request) throws HeaderRules.Invalid {
        return HeaderRules.of(set, add, remove, request);
    }

    private static HeaderRules set(String name, String value) throws HeaderRules.Invalid {
        return rules(Map.of(name, value), List.of(), List.of(), true);
    }

    /** The lines the rules append, as they go on the wire. */
    private static String appended(HeaderRules rules) {
        HeadWriter out = new HeadWriter(16);
        rules.appendTo(out, VALUES);
        return out.toBuffer(MemoryManager.DEFAULT_MEMORY_MANAGER).toStringContent(StandardCharsets.US_ASCII);
    }

    private static boolean drops(HeaderRules rules, String name) {
        byte[] bytes = name.getBytes(StandardCharsets.US_ASCII);
        return rules.drops(FieldName.of(bytes, 0, bytes.length), bytes, 0, bytes.length);
    }

    private static void refusedInBoth(String name) {
        for (boolean request : new boolean[] {true, false}) {
            assertThrows(HeaderRules.Invalid.class, () -> rules(Map.of(name, "x"), List.of(), List.of(), request),
                    "set " + name);
            assertThrows(HeaderRules.Invalid.class, () -> rules(Map.of(), List.of(Map.entry(name, "x")), List.of(), request),
                    "add " + name);
            assertThrows(HeaderRules.Invalid.class, () -> rules(Map.of(), List.of(), List.of(name), request),
                    "remove " + name);
        }
    }

    // ------------------------------------------------------------- semantics

    @Test
    void setDropsEveryFieldOfTheNameAndWritesOneLine() throws Exception {
        HeaderRules rules = set("X-Env", "prod");
        assertTrue(drops(rules, "X-Env"));
        assertTrue(drops(rules, "x-env"), "field names are case-insensitive");
        assertEquals("X-Env: prod\r\n", appended(rules));
    }

    @Test
    void addKeepsTheFieldsOfTheNameAndAppendsOneLine() throws Exception {
        HeaderRules rules = rules(Map.of(), List.of(Map.entry("Via", "kodiak")), List.of(), false);
        assertFalse(drops(rules, "Via"));
        assertEquals("Via: kodiak\r\n", appended(rules));
    }

    @Test
    void addTheSameNameTwiceWritesTwoLinesInOrder() throws Exception {
        HeaderRules rules = rules(Map.of(), List.of(Map.entry("X-Tag", "a"), Map.entry("X-Tag", "b")), List.of(), false);
        assertEquals("X-Tag: a\r\nX-Tag: b\r\n", appended(rules));
    }

    @Test
    void removeDropsTheFieldAndWritesNothing() throws Exception {
        HeaderRules rules = rules(Map.of(), List.of(), List.of("Server"), false);
        assertTrue(drops(rules, "SERVER"));
        assertFalse(drops(rules, "Server-Timing"), "only the exact name");
        assertFalse(drops(rules, "Serve"));
        assertEquals("", appended(rules));
    }

    @Test
    void setLinesComeBeforeAddLines() throws Exception {
        Map<String, String> set = new LinkedHashMap<>();
        set.put("X-A", "1");
        set.put("X-B", "2");
        HeaderRules rules = rules(set, List.of(Map.entry("X-C", "3")), List.of(), true);
        assertEquals("X-A: 1\r\nX-B: 2\r\nX-C: 3\r\n", appended(rules));
    }

    @Test
    void aNameBothSetAndRemovedIsAbsent() throws Exception {
        // "applied in that order": remove comes last, so nothing of the name survives.
        HeaderRules rules = rules(Map.of("X-Debug", "on"), List.of(Map.entry("x-debug", "again")), List.of("X-DEBUG"), true);
        assertTrue(drops(rules, "X-Debug"));
        assertEquals("", appended(rules));
    }

    @Test
    void theFieldsKodiakWritesItselfCanBeDroppedByKnownName() throws Exception {
        HeaderRules rules = rules(Map.of("Host", "backend.internal"), List.of(), List.of("X-Forwarded-For"), true);
        assertTrue(rules.drops(FieldName.HOST));
        assertTrue(rules.drops(FieldName.X_FORWARDED_FOR));
        assertFalse(rules.drops(FieldName.X_FORWARDED_PROTO));
        assertFalse(rules.drops(FieldName.X_FORWARDED_HOST));
        assertEquals("Host: backend.internal\r\n", appended(rules));
    }

    @Test
    void variablesAreSubstitutedAmongLiteralText() throws Exception {
        HeaderRules rules = set("X-Trace", "id=${request_id}; from ${client_addr} to ${scheme}://${host}/");
        assertEquals("X-Trace: id=0123456789abcdef0123456789abcdef; from 192.0.2.7 to https://api.example.com/\r\n",
                appended(rules));
    }

    @Test
    void aVariableWithoutAValueWritesNothingInItsPlace() throws Exception {
        HeaderRules rules = set("X-Host", "[${host}]");
        HeadWriter out = new HeadWriter(16);
        rules.appendTo(out, variable -> null);
        assertEquals("X-Host: []\r\n", out.toBuffer(MemoryManager.DEFAULT_MEMORY_MANAGER).toStringContent(StandardCharsets.US_ASCII));
    }

    @Test
    void aDollarWithoutABraceIsLiteral() throws Exception {
        assertEquals("X-Price: $5 and $host\r\n", appended(set("X-Price", "$5 and $host")));
    }

    @Test
    void usesTellsWhichVariablesTheValuesNeed() throws Exception {
        HeaderRules rules = set("X-Request-Id", "${request_id}");
        assertTrue(rules.uses(HeaderVariable.REQUEST_ID));
        assertFalse(rules.uses(HeaderVariable.HOST));
        assertFalse(HeaderRules.NONE.uses(HeaderVariable.REQUEST_ID));
    }

    @Test
    void noRulesAtAllIsNone() throws Exception {
        assertSame(HeaderRules.NONE, rules(Map.of(), List.of(), List.of(), true));
        assertTrue(HeaderRules.NONE.isEmpty());
        assertFalse(set("X-A", "1").isEmpty());
        assertFalse(drops(HeaderRules.NONE, "X-A"));
        assertFalse(HeaderRules.NONE.drops(FieldName.HOST));
        assertEquals("", appended(HeaderRules.NONE));
    }

    @Test
    void rulesAreEqualByContent() throws Exception {
        // A reload compares rules to tell whether a route changed.
        HeaderRules a = rules(Map.of("X-A", "1"), List.of(Map.entry("X-B", "2")), List.of("X-C"), true);
        HeaderRules b = rules(Map.of("X-A", "1"), List.of(Map.entry("X-B", "2")), List.of("X-C"), true);
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        assertNotEquals(a, rules(Map.of("X-A", "2"), List.of(Map.entry("X-B", "2")), List.of("X-C"), true));
        assertNotEquals(a, rules(Map.of("X-A", "1"), List.of(), List.of("X-C"), true));
        assertNotEquals(a, HeaderRules.NONE);
    }

    // -------------------------------------------------------------- refusals

    @Test
    void framingAndHopByHopFieldsAreRefusedInEitherDirection() {
        for (String name : List.of("Connection", "Transfer-Encoding", "Content-Length", "Upgrade", "TE", "Trailer",
                "Keep-Alive", "Proxy-Connection", "connection", "CONTENT-LENGTH")) {
            refusedInBoth(name);
        }
    }

    /** HTTP2-Settings is dropped by Kodiak itself now; a rule removing it, once the guard against h2c smuggling, stays valid. */
    @Test
    void removingHttp2SettingsStaysValid() throws Exception {
        assertTrue(rules(Map.of(), List.of(), List.of("HTTP2-Settings"), true).drops(FieldName.HTTP2_SETTINGS));
        assertThrows(HeaderRules.Invalid.class, () -> rules(Map.of("HTTP2-Settings", "x"), List.of(), List.of(), true));
    }

    @Test
    void expectIsRefusedOnRequestsOnly() throws Exception {
        // Kodiak answers 100-continue itself; a response has no Expect of Kodiak's.
        assertThrows(HeaderRules.Invalid.class, () -> rules(Map.of("Expect", "100-continue"), List.of(), List.of(), true));
        assertThrows(HeaderRules.Invalid.class, () -> rules(Map.of(), List.of(), List.of("expect"), true));
        assertFalse(rules(Map.of("Expect", "x"), List.of(), List.of(), false).isEmpty());
    }

    @Test
    void aRequestsHostMayBeSetButNotAddedOrRemoved() throws Exception {
        // A request has exactly one Host.
        assertTrue(set("Host", "backend.internal").drops(FieldName.HOST));
        assertThrows(HeaderRules.Invalid.class, () -> rules(Map.of(), List.of(Map.entry("Host", "x")), List.of(), true));
        assertThrows(HeaderRules.Invalid.class, () -> rules(Map.of(), List.of(), List.of("host"), true));
    }

    @Test
    void aResponseMayAddOrRemoveAFieldNamedHost() throws Exception {
        assertFalse(rules(Map.of(), List.of(Map.entry("Host", "x")), List.of(), false).isEmpty());
        assertFalse(rules(Map.of(), List.of(), List.of("Host"), false).isEmpty());
    }

    @Test
    void namesThatAreNoTokensAreRefused() {
        for (String name : List.of("", "X Space", "X:Colon", "X-Ünicode", "X\r\nInjected", "X\"Quote", "(X)", "X/Y")) {
            assertThrows(HeaderRules.Invalid.class, () -> rules(Map.of(name, "v"), List.of(), List.of(), true), name);
            assertThrows(HeaderRules.Invalid.class, () -> rules(Map.of(), List.of(), List.of(name), false), name);
        }
    }

    @Test
    void tokenPunctuationIsAllowedInNames() throws Exception {
        assertEquals("X!#$%&'*+-.^_`|~: v\r\n", appended(set("X!#$%&'*+-.^_`|~", "v")));
    }

    @Test
    void valuesThatCouldStartAFieldOfTheirOwnAreRefused() {
        for (String value : List.of("a\r\nX-Evil: 1", "a\nb", "a\rb", "a\u0000b", "a\u007fb", "a\u001bb")) {
            assertThrows(HeaderRules.Invalid.class, () -> set("X-A", value), value);
            assertThrows(HeaderRules.Invalid.class,
                    () -> rules(Map.of(), List.of(Map.entry("X-A", value)), List.of(), false), value);
        }
    }

    @Test
    void nonAsciiValuesAreRefused() {
        assertThrows(HeaderRules.Invalid.class, () -> set("X-A", "caf\u00e9"));
        assertThrows(HeaderRules.Invalid.class, () -> set("X-A", "\u2603"));
    }

    @Test
    void tabsAndSpacesInsideAValueAreAllowed() throws Exception {
        assertEquals("X-A: a b\tc\r\n", appended(set("X-A", "a b\tc")));
    }

    @Test
    void unknownVariablesAreRefusedByName() {
        HeaderRules.Invalid e = assertThrows(HeaderRules.Invalid.class, () -> set("X-A", "${nope}"));
        assertTrue(e.getMessage().contains("${nope}"), e.getMessage());
        assertThrows(HeaderRules.Invalid.class, () -> set("X-A", "${}"));
        assertThrows(HeaderRules.Invalid.class, () -> set("X-A", "${request_id"), "an unclosed variable");
        assertThrows(HeaderRules.Invalid.class, () -> set("X-A", "${REQUEST_ID}"), "names are lower case");
    }

    @Test
    void leadingOrTrailingWhitespaceIsRefused() {
        // A field value's surrounding whitespace is not part of it (RFC 9110 5.5): it would be lost or misread.
        for (String value : List.of(" a", "a ", "\ta", "a\t", " ")) {
            assertThrows(HeaderRules.Invalid.class, () -> set("X-A", value), "[" + value + "]");
        }
    }

    @Test
    void refusalsSayWhatWasExpected() {
        HeaderRules.Invalid e = assertThrows(HeaderRules.Invalid.class, () -> set("Connection", "close"));
        assertTrue(e.getMessage().contains("Connection"), e.getMessage());
    }
}
