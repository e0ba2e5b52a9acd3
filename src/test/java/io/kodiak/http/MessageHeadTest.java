package io.kodiak.http;

import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.MemoryManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Request and response heads as the codec reads them (RFC 9112 §2-§6): the values the proxy acts
 * on, the same wherever reads split the head, and each rule that refuses one, by its name.
 */
class MessageHeadTest {
    private static final int MAX = 8192;

    /** Reads {@code head} in two reads split at {@code split} (none when 0 or at its end). */
    private static HeadReader read(HeadScanner.Start start, String head, int split, int max) {
        byte[] bytes = head.getBytes(StandardCharsets.ISO_8859_1);
        HeadReader reader = new HeadReader(start, max, Violation.REQUEST_LINE_TOO_LONG);
        List<byte[]> reads = new ArrayList<>();
        if (split > 0 && split < bytes.length) {
            reads.add(Arrays.copyOfRange(bytes, 0, split));
            reads.add(Arrays.copyOfRange(bytes, split, bytes.length));
        } else {
            reads.add(bytes);
        }
        for (byte[] piece : reads) {
            Buffer buffer = Buffers.wrap(MemoryManager.DEFAULT_MEMORY_MANAGER, piece);
            if (reader.read(buffer)) {
                return reader;
            }
        }
        throw new AssertionError("head incomplete: " + head);
    }

    private static RequestHead request(String head, int split) {
        RequestHead parsed = new RequestHead();
        parsed.parse(read(HeadScanner.Start.REQUEST_LINE, head, split, MAX));
        return parsed;
    }

    private static ResponseHead response(String head) {
        ResponseHead parsed = new ResponseHead();
        parsed.parse(read(HeadScanner.Start.STATUS_LINE, head, 0, MAX));
        return parsed;
    }

    private static String value(MessageHead head, int field) {
        return new String(head.array(), head.valueStart(field), head.valueEnd(field) - head.valueStart(field),
                StandardCharsets.ISO_8859_1);
    }

    @Test
    void theValuesTheProxyActsOnAreTheSameWhereverTheHeadIsSplit() {
        String head = "PUT /a/b?x=1&y HTTP/1.1\r\nHost: example.com:8080\r\nConnection: keep-alive, X-Hop\r\n"
                + "X-Hop: 1\r\nContent-Length:  12 \r\nExpect: 100-Continue\r\nX-Empty:\r\nUpgrade: websocket\r\n\r\n";
        for (int split = 0; split < head.length(); split++) {
            RequestHead parsed = request(head, split);
            String at = "split at " + split;
            assertEquals(RequestMethod.PUT, parsed.method(), at);
            assertEquals("PUT", parsed.methodName(), at);
            assertEquals("/a/b", parsed.path(), at);
            assertEquals("x=1&y", parsed.query(), at);
            assertTrue(parsed.isHttp11(), at);
            assertEquals("example.com:8080", value(parsed, parsed.hostField()), at);
            assertEquals(12, parsed.contentLength(), at);
            assertFalse(parsed.isChunked(), at);
            assertTrue(parsed.expectsContinue(), at);
            assertTrue(parsed.hasKeepAliveOption(), at);
            assertFalse(parsed.asksUpgrade(), "Upgrade without the upgrade option asks nothing; " + at);
            assertEquals(7, parsed.fieldCount(), at);
            assertEquals(FieldName.OTHER, parsed.name(2), at);
            assertTrue(parsed.namedByConnection(2), "X-Hop is named by Connection; " + at);
            assertFalse(parsed.namedByConnection(5), at);
            assertEquals("", value(parsed, 5), at);
        }
    }

    /** One head object per connection: a message naming no fields, then one naming many, then one naming one. */
    @Test
    void everyFieldTheConnectionOptionsNameIsFoundAsTheirNumberGrowsFromMessageToMessage() {
        RequestHead parsed = new RequestHead();
        parsed.parse(read(HeadScanner.Start.REQUEST_LINE, "GET / HTTP/1.1\r\nHost: a\r\nX-0: v\r\n\r\n", 0, MAX));
        assertFalse(parsed.namedByConnection(1));
        StringBuilder many = new StringBuilder("GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive");
        for (int i = 0; i < 11; i++) {
            many.append(", X-").append(i);
        }
        many.append("\r\n");
        for (int i = 0; i < 12; i++) {
            many.append("X-").append(i).append(": v\r\n");
        }
        parsed.parse(read(HeadScanner.Start.REQUEST_LINE, many.append("\r\n").toString(), 0, MAX));
        for (int i = 0; i < 11; i++) {
            assertTrue(parsed.namedByConnection(2 + i), "X-" + i + " is named");
        }
        assertFalse(parsed.namedByConnection(13), "X-11 is not");
        assertTrue(parsed.hasKeepAliveOption());
        parsed.parse(read(HeadScanner.Start.REQUEST_LINE, "GET / HTTP/1.1\r\nX-5: v\r\nConnection: X-3\r\nX-3: v\r\nHost: a\r\n\r\n", 0, MAX));
        assertFalse(parsed.namedByConnection(0), "X-5 was named only by the message before");
        assertTrue(parsed.namedByConnection(2));
    }

    @Test
    void anUnknownMethodKeepsItsNameAndMethodsAreCaseSensitive() {
        RequestHead parsed = request("get / HTTP/1.1\r\nHost: a\r\n\r\n", 0);
        assertEquals(RequestMethod.OTHER, parsed.method());
        assertEquals("get", parsed.methodName());
        assertEquals(RequestMethod.OTHER, request("PROPFIND / HTTP/1.1\r\nHost: a\r\n\r\n", 0).method());
    }

    @Test
    void anAbsoluteFormTargetsAuthorityStandsForHost() {
        RequestHead parsed = request("GET HTTP://Example.org:81?q HTTP/1.1\r\nHost: other\r\n\r\n", 0);
        assertTrue(parsed.hasAuthority());
        assertEquals("Example.org:81", new String(parsed.array(), parsed.authorityStart(),
                parsed.authorityEnd() - parsed.authorityStart(), StandardCharsets.US_ASCII));
        assertEquals("/", parsed.path());
        assertEquals("q", parsed.query());
    }

    @Test
    void http10KeepsAliveOnlyWhenAskedAndAMinorVersionAboveOneIsOneOne() {
        assertFalse(request("GET / HTTP/1.0\r\n\r\n", 0).wantsKeepAlive());
        assertTrue(request("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", 0).wantsKeepAlive());
        assertFalse(request("GET / HTTP/1.1\r\nHost: a\r\nConnection: x, close\r\n\r\n", 0).wantsKeepAlive());
        assertTrue(request("GET / HTTP/1.9\r\nHost: a\r\n\r\n", 0).isHttp11());
        assertTrue(request("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: Chunked \r\n\r\n", 0).isChunked());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '#', ignoreLeadingAndTrailingWhitespace = false, value = {
            "GET / HTTP/2.0\\r\\nHost: a\\r\\n\\r\\n#VERSION_NOT_SUPPORTED",
            "GET / HTTP/0.9\\r\\nHost: a\\r\\n\\r\\n#VERSION_NOT_SUPPORTED",
            "OPTIONS * HTTP/1.1\\r\\nHost: a\\r\\n\\r\\n#TARGET_FORM",
            "GET example.com:80 HTTP/1.1\\r\\nHost: a\\r\\n\\r\\n#TARGET_FORM",
            "GET ftp://a/ HTTP/1.1\\r\\nHost: a\\r\\n\\r\\n#TARGET_FORM",
            "GET http://a b/ HTTP/1.1\\r\\nHost: a\\r\\n\\r\\n#VERSION_SYNTAX",
            "GET http:/// HTTP/1.1\\r\\nHost: a\\r\\n\\r\\n#HOST_INVALID",
            "GET http://a:99999/ HTTP/1.1\\r\\nHost: a\\r\\n\\r\\n#HOST_INVALID",
            "GET / HTTP/1.1\\r\\n\\r\\n#HOST_MISSING",
            "GET / HTTP/1.1\\r\\nHost: a\\r\\nhost: a\\r\\n\\r\\n#HOST_REPEATED",
            "GET / HTTP/1.1\\r\\nHost: a b\\r\\n\\r\\n#HOST_INVALID",
            "GET / HTTP/1.1\\r\\nHost: \\r\\n\\r\\n#HOST_INVALID",
            "POST / HTTP/1.1\\r\\nHost: a\\r\\nTransfer-Encoding: gzip, chunked\\r\\n\\r\\n#TRANSFER_CODING_UNSUPPORTED",
            "POST / HTTP/1.1\\r\\nHost: a\\r\\nTransfer-Encoding: chunked\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n#TRANSFER_CODING_UNSUPPORTED",
            "POST / HTTP/1.0\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n#TRANSFER_CODING_UNSUPPORTED",
            "POST / HTTP/1.1\\r\\nHost: a\\r\\nContent-Length: 3\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n#CONTENT_LENGTH_WITH_TRANSFER_ENCODING",
            "POST / HTTP/1.1\\r\\nHost: a\\r\\nContent-Length: 3, 3\\r\\n\\r\\n#CONTENT_LENGTH_SYNTAX",
            "POST / HTTP/1.1\\r\\nHost: a\\r\\nContent-Length: 99999999999999999999\\r\\n\\r\\n#CONTENT_LENGTH_SYNTAX",
            "POST / HTTP/1.1\\r\\nHost: a\\r\\nContent-Length: 3\\r\\nContent-Length: 4\\r\\n\\r\\n#CONFLICTING_CONTENT_LENGTHS",
            "GET / HTTP/1.1\\r\\nHost: a\\r\\n folded\\r\\n\\r\\n#OBS_FOLD",
    })
    void eachRuleRefusesByName(String head, Violation violation) {
        String text = Escapes.unescape(head);
        for (int split = 0; split < text.length(); split++) {
            int at = split;
            assertEquals(violation, assertThrows(HttpViolationException.class, () -> request(text, at)).violation(),
                    "split at " + split);
        }
    }

    @Test
    void aHeadOverTheLimitIsTooLongInItsRequestLineOrTooLargeInItsFields() {
        String longLine = "GET /" + "a".repeat(100) + " HTTP/1.1\r\nHost: a\r\n\r\n";
        assertEquals(Violation.REQUEST_LINE_TOO_LONG, assertThrows(HttpViolationException.class,
                () -> read(HeadScanner.Start.REQUEST_LINE, longLine, 50, 64)).violation());
        String manyFields = "GET / HTTP/1.1\r\nHost: a\r\nX: " + "b".repeat(100) + "\r\n\r\n";
        assertEquals(Violation.HEAD_TOO_LARGE, assertThrows(HttpViolationException.class,
                () -> read(HeadScanner.Start.REQUEST_LINE, manyFields, 0, 64)).violation());
        String exact = "GET / HTTP/1.1\r\nHost: a\r\n\r\n";
        assertEquals(exact.length(), read(HeadScanner.Start.REQUEST_LINE, exact, 5, exact.length()).layout().end());
    }

    @Test
    void responsesKnowWhetherABodyFollowsAndHowItEnds() {
        ResponseHead ok = response("HTTP/1.1 200 All Good\r\nContent-Length: 5\r\n\r\n");
        assertEquals(200, ok.status());
        assertEquals("All Good", new String(ok.array(), ok.reasonStart(), ok.reasonEnd() - ok.reasonStart(),
                StandardCharsets.US_ASCII));
        assertTrue(ok.hasBody(false));
        assertFalse(ok.hasBody(true), "the answer to HEAD has no body");
        assertTrue(response("HTTP/1.1 200 OK\r\n\r\n").isCloseDelimited());
        assertFalse(response("HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\n").hasBody(false));
        assertTrue(response("HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n").isInterim());
        ResponseHead noReason = response("HTTP/1.0 204\r\n\r\n");
        assertEquals(noReason.reasonStart(), noReason.reasonEnd());
        assertFalse(noReason.wantsKeepAlive(), "HTTP/1.0 without keep-alive");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '#', ignoreLeadingAndTrailingWhitespace = false, value = {
            "HTTP/2.0 200 OK\\r\\n\\r\\n#VERSION_NOT_SUPPORTED",
            "HTTP/1.1 099 Below\\r\\n\\r\\n#STATUS_LINE_SYNTAX",
            "HTTP/1.1 204 No Content\\r\\nContent-Length: 5\\r\\n\\r\\n#BODY_ON_BODYLESS_STATUS",
            "HTTP/1.1 205 Reset\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n#BODY_ON_BODYLESS_STATUS",
            "HTTP/1.1 200 OK\\r\\nContent-Length: 2\\r\\nContent-Length: 20\\r\\n\\r\\n#CONFLICTING_CONTENT_LENGTHS",
            "HTTP/1.0 200 OK\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n#TRANSFER_CODING_UNSUPPORTED",
    })
    void responseRulesRefuseByName(String head, Violation violation) {
        assertEquals(violation, assertThrows(HttpViolationException.class,
                () -> response(Escapes.unescape(head))).violation());
    }
}
