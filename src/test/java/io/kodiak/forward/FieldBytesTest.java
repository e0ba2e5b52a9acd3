package io.kodiak.forward;

import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import io.kodiak.support.RecordedProxy;
import io.kodiak.support.RecordingUpstream;
import io.kodiak.support.ScriptedUpstream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Header field bytes in both directions (RFC 9110 §5.1 and §5.5, RFC 9112 §2.2 and §5): a name is
 * a token; a value holds visible characters, obs-text, SP and HTAB, never CR, LF, NUL or another
 * control byte; CR only ends a line together with LF; no line folding. A request that breaks this
 * gets 400 and a closed connection before any upstream sees it; an upstream response that breaks
 * it gets 502, its connection is closed and never pooled, and the client sees none of its fields.
 */
class FieldBytesTest {
    private RecordedProxy proxy;
    private ScriptedUpstream scripted;
    private ProxyHarness scriptedProxy;

    @AfterEach
    void stop() throws IOException {
        if (proxy != null) {
            proxy.close();
        }
        if (scriptedProxy != null) {
            scriptedProxy.close();
        }
        if (scripted != null) {
            scripted.close();
        }
    }

    // ------------------------------------------------------------------ requests

    @ParameterizedTest
    @ValueSource(strings = {
            "X-Cr: a\rTransfer-Encoding: chunked", // bare CR mid-value: an injected field to a CR-splitting upstream
            "X-Cr: a\r",                           // CR at the end of the value, before CRLF
            "X-Cr: \ra",
            "X-Nul: a\u0000b",
            "X-Nul: a\u0000",
            "X-Ctl: a\u0001b",
            "X-Esc: a\u001bb",
            "X-Vt: a\u000bb",
            "X-Del: a\u007fb",
    })
    void controlBytesInARequestFieldValueGet400(String field) throws Exception {
        proxy = RecordedProxy.start();
        proxy.assertRefused("GET / HTTP/1.1\r\nHost: a\r\n" + field + "\r\n\r\n", 400, "malformed request");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "X-N\u0000ul: a",   // NUL in a name
            "X\u0001: a",
            "X-A b: a",         // SP in a name
            "X-A\t: a",         // HTAB before the colon
            ": a",              // empty name
            "X-\u00e9: a",      // obs-text is not a token character
    })
    void aRequestFieldNameThatIsNotATokenGets400(String field) throws Exception {
        proxy = RecordedProxy.start();
        proxy.assertRefused("GET / HTTP/1.1\r\nHost: a\r\n" + field + "\r\n\r\n", 400, "malformed header field name");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "GET / HTTP/1.1\r\nHost: a\r\nX-Fold: a\r\n b\r\n\r\n",  // obsolete line folding
            "GET / HTTP/1.1\r\n Host: a\r\n\r\n",                     // whitespace before the first field
            "GET / HTTP/1.1\r\nHost: a\r\n\r\r\n",                    // a bare CR ahead of the empty line
    })
    void malformedFieldLinesGet400(String request) throws Exception {
        proxy = RecordedProxy.start();
        proxy.assertRefused(request, 400, "malformed request");
    }

    @Test
    void aControlByteArrivingAloneInItsOwnReadStillGets400() throws Exception {
        proxy = RecordedProxy.start();
        try (RawHttp raw = new RawHttp(proxy.port())) {
            raw.sendByteByByte("GET / HTTP/1.1\r\nHost: a\r\nX-Cr: a\rb", proxy.reads());
            RawHttp.Response response = raw.read();
            assertEquals(400, response.status());
            assertTrue(raw.closedByPeer());
        }
        proxy.assertServesNextClient();
        assertEquals(1, proxy.upstream().received().size(), "only the next client's request");
    }

    @Test
    void htabObsTextAndLfAloneAsALineEndAreAccepted() throws Exception {
        proxy = RecordedProxy.start();
        RecordingUpstream.Received received = proxy.assertForwarded(
                "GET / HTTP/1.1\nHost: a\nX-Tab: a\tb\r\nX-Latin: caf\u00e9\n\n");
        assertEquals("a\tb", received.header("x-tab"));
        assertEquals("caf\u00e9", received.header("x-latin"));
    }

    @Test
    void aValidHeadArrivingOneByteAtATimeIsForwarded() throws Exception {
        proxy = RecordedProxy.start();
        RecordingUpstream.Received received = proxy.assertForwardedByteByByte(
                "POST /p?q=1 HTTP/1.1\r\nHost: a\r\nX-A: b c\r\nContent-Length: 2\r\n\r\nhi");
        assertEquals("/p?q=1", received.target());
        assertEquals("b c", received.header("x-a"));
        assertEquals("hi", received.body());
    }

    // ----------------------------------------------------------------- responses

    @ParameterizedTest
    @ValueSource(strings = {
            "X-Cr: a\rSet-Cookie: injected=1", // response header injection through a bare CR
            "X-Cr: a\r",
            "X-Nul: a\u0000Set-Cookie: injected=1",
            "X-Del: a\u007f",
            "X-Ctl: \u0002", // (\u0001 is ScriptedUpstream.PAUSE)
            "X-Fold: a\r\n Set-Cookie: injected=1",
            "Set-Cookie\u0000: injected=1",
            "X-Bad Name: injected=1",
    })
    void aResponseFieldWithForbiddenBytesGets502AndItsConnectionIsClosed(String field) throws Exception {
        scripted = new ScriptedUpstream(i -> i == 0
                ? "HTTP/1.1 200 OK\r\n" + field + "\r\nContent-Length: 2\r\n\r\nok"
                : "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nnext", false);
        scriptedProxy = ProxyHarness.forUpstream(scripted.url("/"), "");
        try (RawHttp raw = new RawHttp(scriptedProxy.port())) {
            RawHttp.Response response = raw.send("GET /1 HTTP/1.1\r\nHost: a\r\n\r\n").read();
            assertEquals(502, response.status());
            assertTrue(response.bodyText().startsWith("502 upstream sent an invalid response"), response.bodyText());
            assertFalse(response.headers.stream().anyMatch(h -> h[1].contains("injected")), "no injected field reached the client");
            assertEquals("next", raw.send("GET /2 HTTP/1.1\r\nHost: a\r\n\r\n").read().bodyText());
        }
        assertEquals(2, scripted.connections(), "the broken response's connection was not reused");
    }

    @Test
    void aResponseStatusLineWithAControlByteGets502() throws Exception {
        scripted = new ScriptedUpstream(i -> "HTTP/1.1 200 O\u0000K\r\nContent-Length: 2\r\n\r\nok", false);
        scriptedProxy = ProxyHarness.forUpstream(scripted.url("/"), "");
        try (RawHttp raw = new RawHttp(scriptedProxy.port())) {
            assertEquals(502, raw.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read().status());
        }
    }

    @Test
    void aResponseWithHtabObsTextAndNoReasonPhraseIsRelayed() throws Exception {
        scripted = new ScriptedUpstream(i -> "HTTP/1.1 200\r\nX-Tab: a\tb\r\nX-Latin: caf\u00e9\r\nContent-Length: 2\r\n\r\nok", false);
        scriptedProxy = ProxyHarness.forUpstream(scripted.url("/"), "");
        try (RawHttp raw = new RawHttp(scriptedProxy.port())) {
            RawHttp.Response response = raw.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read();
            assertEquals(200, response.status());
            assertEquals("a\tb", response.header("x-tab"));
            assertEquals("caf\u00e9", response.header("x-latin"));
            assertEquals("ok", response.bodyText());
        }
    }
}
