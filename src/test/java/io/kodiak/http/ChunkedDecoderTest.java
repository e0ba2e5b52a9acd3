package io.kodiak.http;

import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.MemoryManager;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The chunked decoder on its own, fed every way a body can be split in two reads (and one byte
 * per read): each split gives the same data, the same end, and the same violation.
 */
class ChunkedDecoderTest {
    /** What one body decodes to: its data, then "|" and the bytes left after its end (the next message). */
    private static String decode(String body, int... splits) {
        ChunkedDecoder decoder = new ChunkedDecoder(64);
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        byte[] bytes = body.getBytes(StandardCharsets.ISO_8859_1);
        int from = 0;
        for (int p = 0; p <= splits.length; p++) {
            int to = p < splits.length ? splits[p] : bytes.length;
            Buffer buffer = Buffers.wrap(MemoryManager.DEFAULT_MEMORY_MANAGER, bytes, from, to - from);
            while (true) {
                int n = decoder.next(buffer);
                if (n == ChunkedDecoder.END) {
                    return data.toString(StandardCharsets.ISO_8859_1) + "|"
                            + new String(bytes, from + buffer.position(), bytes.length - from - buffer.position(), StandardCharsets.ISO_8859_1);
                }
                if (n == 0) {
                    break;
                }
                for (int i = 0; i < n; i++) {
                    data.write(buffer.get());
                }
            }
            from = to;
        }
        return data.toString(StandardCharsets.ISO_8859_1) + "…";
    }

    private static void assertEverySplit(String body, String expected) {
        assertEquals(expected, decode(body));
        int length = body.length();
        for (int split = 1; split < length; split++) {
            assertEquals(expected, decode(body, split), "split at " + split);
        }
        int[] everyByte = new int[length - 1];
        for (int i = 0; i < everyByte.length; i++) {
            everyByte[i] = i + 1;
        }
        assertEquals(expected, decode(body, everyByte), "one byte per read");
    }

    private static void assertViolationAtEverySplit(String body, Violation violation) {
        assertEquals(violation, assertThrows(HttpViolationException.class, () -> decode(body)).violation());
        for (int split = 1; split < body.length(); split++) {
            int at = split;
            assertEquals(violation, assertThrows(HttpViolationException.class, () -> decode(body, at),
                    "split at " + split).violation(), "split at " + split);
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '#', ignoreLeadingAndTrailingWhitespace = false, value = {
            "5\\r\\nhello\\r\\n0\\r\\n\\r\\n#hello|",
            "5\\r\\nhello\\r\\n0\\r\\n\\r\\nGET / HTTP/1.1\\r\\n#hello|GET / HTTP/1.1\\r\\n",
            "5;a=b;c=\"d;e\"\\r\\nhello\\r\\n0;x\\r\\n\\r\\n#hello|",
            "5 \\t;a\\r\\nhello\\r\\n0\\r\\n\\r\\n#hello|",
            "5; a = \"q\\\"x;y\" ;b=\"\" ;c\\r\\nhello\\r\\n0\\r\\n\\r\\n#hello|",
            "0005\\r\\nhello\\r\\n000\\r\\n\\r\\n#hello|",
            "A\\r\\n0123456789\\r\\na\\r\\n0123456789\\r\\n0\\r\\n\\r\\n#01234567890123456789|",
            "5\\r\\nhello\\r\\n0\\r\\nX-A: 1\\r\\nX-B:\\t2 \\r\\n\\r\\nnext#hello|next",
            "0\\r\\n\\r\\n#|",
            "5\\r\\n\\r\\n\\r\\n\\r\\r\\n0\\r\\n\\r\\n#\\r\\n\\r\\n\\r|",
    })
    void validBodiesDecodeTheSameWhereverTheyAreSplit(String body, String expected) {
        assertEverySplit(Escapes.unescape(body), Escapes.unescape(expected));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '#', ignoreLeadingAndTrailingWhitespace = false, value = {
            "3\\r\\nhello\\r\\n0\\r\\n\\r\\n#CHUNK_DATA_NOT_TERMINATED",
            "5\\r\\nhelloXY\\r\\n0\\r\\n\\r\\n#CHUNK_DATA_NOT_TERMINATED",
            "5\\r\\nhello\\n0\\r\\n\\r\\n#CHUNK_DATA_NOT_TERMINATED",
            "5\\nhello\\r\\n0\\r\\n\\r\\n#BARE_LF",
            "0\\n\\n#BARE_LF",
            "5\\r\\nhello\\r\\n0\\r\\n\\n#BARE_LF",
            "5\\r\\nhello\\r\\n0\\r\\nX: 1\\n\\r\\n#BARE_LF",
            "5\\rhello#BARE_CR",
            " 5\\r\\nhello\\r\\n0\\r\\n\\r\\n#CHUNK_SIZE_SYNTAX",
            "5 \\r\\nhello\\r\\n0\\r\\n\\r\\n#CHUNK_SIZE_SYNTAX",
            "0x5\\r\\nhello\\r\\n0\\r\\n\\r\\n#CHUNK_SIZE_SYNTAX",
            "-5\\r\\n#CHUNK_SIZE_SYNTAX",
            "\\r\\n#CHUNK_SIZE_SYNTAX",
            "5;a\\u0000\\r\\n#CHUNK_EXTENSION_SYNTAX",
            "5;a\\u007f\\r\\n#CHUNK_EXTENSION_SYNTAX",
            "5;\\r\\nhello#CHUNK_EXTENSION_SYNTAX",
            "5;a \\r\\nhello#CHUNK_EXTENSION_SYNTAX",
            "5;a=b \\r\\nhello#CHUNK_EXTENSION_SYNTAX",
            "5;a=\"b\" \\r\\nhello#CHUNK_EXTENSION_SYNTAX",
            "5;a=\"b\\r\\nhello\"\\r\\n#CHUNK_EXTENSION_SYNTAX",
            "5;a=\"b\"c\\r\\nhello#CHUNK_EXTENSION_SYNTAX",
            "5;a=b=c\\r\\nhello#CHUNK_EXTENSION_SYNTAX",
            "5;a=\\r\\nhello#CHUNK_EXTENSION_SYNTAX",
            "10000000000000000\\r\\n#CHUNK_SIZE_OVERFLOW",
            "5\\r\\nhello\\r\\n0\\r\\nX\\r\\n\\r\\n#FIELD_LINE_WITHOUT_COLON",
            "5\\r\\nhello\\r\\n0\\r\\nX: a\\rb\\r\\n\\r\\n#FIELD_VALUE_CHARACTER",
            "5\\r\\nhello\\r\\n0\\r\\n X: 1\\r\\n\\r\\n#OBS_FOLD",
            "0\\r\\nX-Long: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\\r\\n\\r\\n#TRAILER_TOO_LARGE",
    })
    void brokenFramingIsTheSameViolationWhereverItIsSplit(String body, Violation violation) {
        assertViolationAtEverySplit(Escapes.unescape(body), violation);
    }

    @org.junit.jupiter.api.Test
    void aChunkLineIsBounded() {
        String longLine = "5;" + "a".repeat(ChunkedDecoder.MAX_CHUNK_LINE) + "\r\nhello\r\n0\r\n\r\n";
        assertEquals(Violation.CHUNK_LINE_TOO_LONG,
                assertThrows(HttpViolationException.class, () -> decode(longLine)).violation());
        String justFits = "5;" + "a".repeat(ChunkedDecoder.MAX_CHUNK_LINE - 5) + "\r\nhello\r\n0\r\n\r\n";
        assertEquals("hello|", decode(justFits));
    }
}
