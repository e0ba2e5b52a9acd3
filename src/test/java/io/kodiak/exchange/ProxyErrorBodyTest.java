package io.kodiak.exchange;

import io.kodiak.http.Violation;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The bodies of Kodiak's own refusals: each names the broken rule once. */
class ProxyErrorBodyTest {

    @Test
    void everyViolationsBodyNamesItsRuleWithoutSayingAnythingTwice() {
        for (Violation violation : Violation.values()) {
            ProxyError error = ProxyError.of(violation);
            String detail = ProxyError.detailOf(violation);
            String body = new String(error.answerBody(detail, 0), StandardCharsets.UTF_8);
            assertTrue(body.startsWith(error.status + " " + error.text), body);
            if (detail != null) {
                assertTrue(body.contains(violation.text()), violation + ": " + body);
            }
            assertEquals(-1, repeatedRun(body), violation + " says something twice: " + body);
        }
    }

    @Test
    void aRuleTheErrorIsNamedAfterIsNotRepeatedAsItsDetail() {
        String body = new String(ProxyError.of(Violation.CONTENT_LENGTH_SYNTAX)
                .answerBody(ProxyError.detailOf(Violation.CONTENT_LENGTH_SYNTAX), 0), StandardCharsets.UTF_8);
        assertEquals("400 malformed Content-Length (one decimal number expected)\n", body);
    }

    @Test
    void aGenericErrorCarriesTheExactRule() {
        String body = new String(ProxyError.of(Violation.BARE_CR)
                .answerBody(ProxyError.detailOf(Violation.BARE_CR), 0), StandardCharsets.UTF_8);
        assertEquals("400 malformed request: bare CR in the message head\n", body);
    }

    /** The index of the first run of three words that the body says a second time, or -1. */
    private static int repeatedRun(String body) {
        String[] words = body.toLowerCase(Locale.ROOT).split("[^a-z0-9-]+");
        Set<String> seen = new HashSet<>();
        for (int i = 0; i + 2 < words.length; i++) {
            String run = words[i] + ' ' + words[i + 1] + ' ' + words[i + 2];
            if (!seen.add(run)) {
                return i;
            }
        }
        return -1;
    }
}
