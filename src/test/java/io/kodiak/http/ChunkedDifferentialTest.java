package io.kodiak.http;

import io.kodiak.support.StrictParser;
import org.eclipse.jetty.http.HttpCompliance;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.MemoryManager;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Kodiak's chunked decoder against a strict reference parser (Jetty's, {@link StrictParser}, in RFC
 * 9110 mode) on mutated chunked bodies: whatever Kodiak accepts, Jetty must accept too, with the
 * same data and the same end. A body the two read differently is the raw material of request
 * smuggling; Kodiak may refuse more than Jetty, never read something else. Seeded, so a failure
 * repeats; the mutations draw from the bytes that matter to chunked framing. A longer run:
 * {@code mvn test -Dtest=ChunkedDifferentialTest -Dseed=7 -Dcases=400000}.
 */
class ChunkedDifferentialTest {
    private static final String HEAD = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n";
    private static final String NEXT = "GET /next HTTP/1.1\r\nHost: a\r\n\r\n";
    private static final byte[] ALPHABET = "\r\n \t;=\"0123456789abcdefABCDEFgxX-+:\u0000\u007f\u0080"
            .getBytes(StandardCharsets.ISO_8859_1);
    private static final String[] SEEDS = {
            "5\r\nhello\r\n0\r\n\r\n",
            "5;a=b\r\nhello\r\n6 ; c=\"d;e\"\r\n world\r\n0\r\n\r\n",
            "3\r\nabc\r\n0\r\nX-T: 1\r\nY: 2\r\n\r\n",
            "a\r\n0123456789\r\n1\r\n!\r\n0;z\r\n\r\n",
            "0\r\n\r\n",
    };

    /** What one parser made of a body followed by another request: the data, and where the body ended; or nothing. */
    private record Reading(boolean accepted, String data, int end) {
        static final Reading REFUSED = new Reading(false, null, -1);
    }

    @Test
    void whatKodiakAcceptsJettyReadsTheSameWay() {
        Random random = new Random(Long.getLong("seed", 20261124));
        int accepted = 0;
        for (int i = 0; i < Integer.getInteger("cases", 30_000); i++) {
            byte[] body = mutate(SEEDS[random.nextInt(SEEDS.length)].getBytes(StandardCharsets.ISO_8859_1), random);
            byte[] message = concat(body, NEXT.getBytes(StandardCharsets.ISO_8859_1));
            Reading kodiak = kodiak(message);
            Reading jetty = jetty(message);
            String shown = new String(body, StandardCharsets.ISO_8859_1).replace("\r", "\\r").replace("\n", "\\n");
            if (kodiak.accepted()) {
                accepted++;
                assertTrue(jetty.accepted(), "Kodiak accepted, Jetty refused: " + shown);
                assertEquals(jetty.data(), kodiak.data(), "data of " + shown);
                assertEquals(jetty.end(), kodiak.end(), "end of " + shown);
            }
        }
        // The mutations must leave enough bodies valid for the comparison to mean something.
        assertTrue(accepted > 3_000, "bodies both accepted: " + accepted);
    }

    private static byte[] mutate(byte[] seed, Random random) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(seed);
        byte[] bytes = out.toByteArray();
        int mutations = random.nextInt(3);
        for (int m = 0; m < mutations; m++) {
            int at = random.nextInt(bytes.length + 1);
            byte b = ALPHABET[random.nextInt(ALPHABET.length)];
            ByteArrayOutputStream next = new ByteArrayOutputStream();
            switch (random.nextInt(3)) {
                case 0 -> { // insert
                    next.write(bytes, 0, at);
                    next.write(b);
                    next.write(bytes, at, bytes.length - at);
                }
                case 1 -> { // delete
                    next.write(bytes, 0, Math.min(at, bytes.length));
                    if (at < bytes.length) {
                        next.write(bytes, at + 1, bytes.length - at - 1);
                    }
                }
                default -> { // replace
                    next.writeBytes(bytes);
                    if (at < bytes.length) {
                        byte[] replaced = next.toByteArray();
                        replaced[at] = b;
                        next.reset();
                        next.writeBytes(replaced);
                    }
                }
            }
            bytes = next.toByteArray();
        }
        return bytes;
    }

    private static Reading kodiak(byte[] message) {
        ChunkedDecoder decoder = new ChunkedDecoder(64 * 1024);
        Buffer buffer = Buffers.wrap(MemoryManager.DEFAULT_MEMORY_MANAGER, message);
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        try {
            while (true) {
                int n = decoder.next(buffer);
                if (n == ChunkedDecoder.END) {
                    return new Reading(true, data.toString(StandardCharsets.ISO_8859_1), buffer.position());
                }
                if (n == 0) {
                    return Reading.REFUSED; // incomplete: what followed was taken as part of the body
                }
                for (int i = 0; i < n; i++) {
                    data.write(buffer.get());
                }
            }
        } catch (HttpViolationException refused) {
            return Reading.REFUSED;
        }
    }

    private static Reading jetty(byte[] body) {
        byte[] head = HEAD.getBytes(StandardCharsets.ISO_8859_1);
        List<StrictParser.Parsed> parsed = StrictParser.readAll(concat(head, body), HttpCompliance.RFC9110);
        if (parsed.isEmpty()) {
            return Reading.REFUSED;
        }
        return new Reading(true, parsed.get(0).request().body(), parsed.get(0).end() - head.length);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] all = new byte[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
