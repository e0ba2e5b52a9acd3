package io.kodiak.http;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.MemoryManager;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Coverage-guided fuzz targets for the codec: any input either parses or is refused with a named
 * {@link Violation}; anything else thrown is a finding. Accepted heads must be internally
 * consistent, and must parse the same way wherever the reads split them.
 *
 * <p>Run as a test, the saved inputs under {@code ParserFuzzTestInputs/} (in test resources) are
 * replayed; {@code bin/bench.sh fuzz --minutes N} fuzzes (JAZZER_FUZZ=1). A crash Jazzer finds
 * is saved there and becomes a regression input.
 */
class ParserFuzzTest {
    private static final int MAX_HEAD = 4096;

    @FuzzTest(maxDuration = "1m")
    void requestHeadsAndBodies(byte[] input) {
        parseTwice(HeadScanner.Start.REQUEST_LINE, input);
    }

    @FuzzTest(maxDuration = "1m")
    void responseHeadsAndBodies(byte[] input) {
        parseTwice(HeadScanner.Start.STATUS_LINE, input);
    }

    /** The first byte chooses where the second read starts; the outcome must not depend on it. */
    private static void parseTwice(HeadScanner.Start start, byte[] input) {
        if (input.length < 2) {
            return;
        }
        byte[] bytes = Arrays.copyOfRange(input, 1, input.length);
        String whole = outcome(start, bytes, bytes.length);
        String split = outcome(start, bytes, (input[0] & 0xff) % bytes.length);
        assertEquals(whole, split, "the outcome depends on where the reads split the message");
    }

    /** What a message parses to: its head's values and body length, or the violation refusing it. */
    private static String outcome(HeadScanner.Start start, byte[] bytes, int split) {
        HeadReader reader = new HeadReader(start, MAX_HEAD, Violation.REQUEST_LINE_TOO_LONG);
        try {
            Buffer first = wrap(Arrays.copyOfRange(bytes, 0, split));
            Buffer rest = wrap(Arrays.copyOfRange(bytes, split, bytes.length));
            Buffer body;
            if (reader.read(first)) {
                body = first;
            } else if (reader.read(rest)) {
                body = rest;
            } else {
                return "incomplete";
            }
            MessageHead head = start == HeadScanner.Start.REQUEST_LINE ? new RequestHead() : new ResponseHead();
            if (head instanceof RequestHead request) {
                request.parse(reader);
            } else {
                ((ResponseHead) head).parse(reader);
            }
            checkLayout(head);
            String values = describe(head);
            BodyReader reading = new BodyReader(MAX_HEAD);
            if (head.isChunked()) {
                reading.expectChunked();
            } else {
                reading.expectLength(Math.max(0, Math.min(head.contentLength(), 1 << 20)));
            }
            long length = 0;
            for (Buffer piece : body == first ? new Buffer[]{first, rest} : new Buffer[]{rest}) {
                while (piece.hasRemaining() && !reading.isDone()) {
                    int n = reading.next(piece);
                    if (n > 0) {
                        piece.position(piece.position() + n);
                        length += n;
                    }
                }
            }
            return values + " body " + length + (reading.isDone() ? "" : "+");
        } catch (HttpViolationException refused) {
            return "refused " + refused.violation();
        }
    }

    private static void checkLayout(MessageHead head) {
        HeadLayout layout = head.layout();
        assertTrue(layout.start() <= layout.lineEnd() && layout.lineEnd() < layout.end(), "start line inside the head");
        for (int i = 0; i < head.fieldCount(); i++) {
            assertTrue(layout.nameStart(i) < layout.colon(i) && layout.colon(i) < layout.valueEnd(i) + 1
                    && layout.valueEnd(i) < layout.end(), "field " + i + " inside the head");
            assertTrue(head.valueStart(i) <= head.valueEnd(i), "value " + i);
        }
    }

    private static String describe(MessageHead head) {
        StringBuilder out = new StringBuilder();
        if (head instanceof RequestHead request) {
            out.append(request.methodName()).append(' ').append(request.path()).append('?').append(request.query());
        } else {
            out.append(((ResponseHead) head).status());
        }
        out.append(' ').append(head.isHttp11()).append(' ').append(head.contentLength()).append(' ').append(head.isChunked());
        for (int i = 0; i < head.fieldCount(); i++) {
            out.append('|').append(head.name(i)).append('=')
                    .append(new String(head.array(), head.valueStart(i), head.valueEnd(i) - head.valueStart(i),
                            java.nio.charset.StandardCharsets.ISO_8859_1));
        }
        return out.toString();
    }

    private static Buffer wrap(byte[] bytes) {
        return Buffers.wrap(MemoryManager.DEFAULT_MEMORY_MANAGER, bytes);
    }
}
