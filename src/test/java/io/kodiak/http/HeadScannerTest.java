package io.kodiak.http;

import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.MemoryManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The head scanner through {@link HeadReader}, as the codecs use it: the same end or the same
 * violation wherever the reads split the head (the first read up to each split, the rest in a
 * second read).
 */
class HeadScannerTest {
    /** The index just after the head when it completed, reads split at {@code splits}; -1 when incomplete. */
    private static int scan(HeadScanner.Start start, String head, int... splits) {
        byte[] bytes = head.getBytes(StandardCharsets.ISO_8859_1);
        HeadReader reader = new HeadReader(start, 64 * 1024, Violation.REQUEST_LINE_TOO_LONG);
        int from = 0;
        int consumed = 0;
        int[] ends = java.util.Arrays.copyOf(splits, splits.length + 1);
        ends[splits.length] = bytes.length;
        for (int to : ends) {
            Buffer read = Buffers.wrap(MemoryManager.DEFAULT_MEMORY_MANAGER, java.util.Arrays.copyOfRange(bytes, from, to));
            if (reader.read(read)) {
                return consumed + read.position();
            }
            consumed += to - from;
            from = to;
        }
        return -1;
    }

    private static int endOf(String head) {
        int crlf = head.indexOf("\r\n\r\n");
        int lf = head.indexOf("\n\n");
        return crlf >= 0 && (lf < 0 || crlf + 2 <= lf) ? crlf + 4 : lf + 2;
    }

    private static void assertViolationAtEverySplit(HeadScanner.Start start, String head, Violation violation) {
        assertEquals(violation, assertThrows(HttpViolationException.class, () -> scan(start, head)).violation());
        for (int split = 1; split < head.length(); split++) {
            int at = split;
            assertEquals(violation, assertThrows(HttpViolationException.class, () -> scan(start, head, at)).violation(),
                    "split at " + split);
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '#', ignoreLeadingAndTrailingWhitespace = false, value = {
            "GET /a\\u0001b HTTP/1.1\\r\\nHost: a\\r\\n\\r\\n#TARGET_CHARACTER",
            "GET /a\\u007f HTTP/1.1\\r\\nHost: a\\r\\n\\r\\n#TARGET_CHARACTER",
            "GET /caf\\u00e9 HTTP/1.1\\r\\n\\r\\n#TARGET_CHARACTER",
            "GET /a\\tb HTTP/1.1\\r\\n\\r\\n#TARGET_CHARACTER",
            "GET  /a HTTP/1.1\\r\\n\\r\\n#REQUEST_LINE_SYNTAX",
            "GET /a\\r\\n\\r\\n#REQUEST_LINE_SYNTAX",
            "G(T /a HTTP/1.1\\r\\n\\r\\n#METHOD_NOT_TOKEN",
            "\\r\\nGET /a HTTP/1.1\\r\\n\\r\\n#METHOD_NOT_TOKEN",
            "GET /a HTTP/1.1 \\r\\n\\r\\n#VERSION_SYNTAX",
            "GET /a HTTP/11\\r\\n\\r\\n#VERSION_SYNTAX",
            "GET /a HTTP/1.1\\rX\\n\\r\\n#BARE_CR",
            "GET /a HTTP/1.1\\r\\nX-A: a\\rb\\r\\n\\r\\n#FIELD_VALUE_CHARACTER",
            "GET /a HTTP/1.1\\r\\nX-A: a\\r\\r\\n\\r\\n#FIELD_VALUE_CHARACTER",
            "GET /a HTTP/1.1\\r\\nX-A: a\\u0000\\r\\n\\r\\n#FIELD_VALUE_CHARACTER",
            "GET /a HTTP/1.1\\r\\nX-A: a\\u001f\\r\\n\\r\\n#FIELD_VALUE_CHARACTER",
            "GET /a HTTP/1.1\\r\\nX-A : a\\r\\n\\r\\n#FIELD_NAME_NOT_TOKEN",
            "GET /a HTTP/1.1\\r\\n: a\\r\\n\\r\\n#FIELD_NAME_NOT_TOKEN",
            "GET /a HTTP/1.1\\r\\nX-A\\r\\n\\r\\n#FIELD_LINE_WITHOUT_COLON",
            "GET /a HTTP/1.1\\r\\nX-A: 1\\r\\n\\tb\\r\\n\\r\\n#OBS_FOLD",
            "GET /a HTTP/1.1\\r\\nX-A: 1\\r\\n\\r\\r\\n#BARE_CR",
    })
    void requestHeadViolationsAreFoundWhereverTheHeadIsSplit(String head, Violation violation) {
        assertViolationAtEverySplit(HeadScanner.Start.REQUEST_LINE, Escapes.unescape(head), violation);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '#', ignoreLeadingAndTrailingWhitespace = false, value = {
            "HTTP/1.1 200 O\\u0000K\\r\\n\\r\\n#STATUS_LINE_SYNTAX",
            "HTTP/1.1 20 OK\\r\\n\\r\\n#STATUS_LINE_SYNTAX",
            "HTTP/1.1 2000 OK\\r\\n\\r\\n#STATUS_LINE_SYNTAX",
            "HTTP/1.1  200 OK\\r\\n\\r\\n#STATUS_LINE_SYNTAX",
            "HTTP/1.1 200 OK\\r\\nSet-Cookie: a\\rSet-Cookie: b\\r\\n\\r\\n#FIELD_VALUE_CHARACTER",
    })
    void responseHeadViolationsAreFoundWhereverTheHeadIsSplit(String head, Violation violation) {
        assertViolationAtEverySplit(HeadScanner.Start.STATUS_LINE, Escapes.unescape(head), violation);
    }

    @Test
    void aValidHeadEndsAtItsEmptyLineWhereverItIsSplit() {
        String head = "POST /a?b=c HTTP/1.1\r\nHost: a\nX-Tab: a\tb \r\nX-Latin: caf\u00e9\r\n\r\nbody bytes \u0000 are not scanned";
        for (int split = 1; split < head.length(); split++) {
            assertEquals(endOf(head), scan(HeadScanner.Start.REQUEST_LINE, head, split), "split at " + split);
        }
        assertEquals(endOf("HTTP/1.1 204\r\n\r\n"), scan(HeadScanner.Start.STATUS_LINE, "HTTP/1.1 204\r\n\r\n"));
    }

    @Test
    void anIncompleteHeadIsNotDone() {
        assertEquals(-1, scan(HeadScanner.Start.REQUEST_LINE, "GET / HTTP/1.1\r\nHost: a\r\n"));
    }
}
