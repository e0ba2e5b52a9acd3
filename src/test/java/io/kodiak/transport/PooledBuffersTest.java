package io.kodiak.transport;

import io.kodiak.support.Await;
import io.kodiak.support.Patterns;
import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import io.kodiak.support.TestUpstream;
import org.glassfish.grizzly.memory.MemoryProbe;
import org.glassfish.grizzly.memory.PooledMemoryManager;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Under pooled buffers every buffer taken from a pool comes back once its exchange is over: the
 * read buffers the codec took apart, the slices of them written to the other side, the pieces
 * copied into one write or chained into one, over both sides and every framing. A buffer that
 * does not come back is not reused, and with direct buffers each read would then allocate outside
 * the heap: the cost the pool is there to avoid. (Runs in the plain suite, whose heap makes pools
 * large enough that none runs dry in these exchanges: then every buffer taken is one counted.)
 */
class PooledBuffersTest {

    /** Buffers taken from the pools and given back, as the pools report them. */
    private static final class Counts implements MemoryProbe {
        final AtomicLong taken = new AtomicLong();
        final AtomicLong returned = new AtomicLong();
        final AtomicLong allocatedOutside = new AtomicLong();

        @Override
        public void onBufferAllocateEvent(int size) {
            allocatedOutside.incrementAndGet();
        }

        @Override
        public void onBufferAllocateFromPoolEvent(int size) {
            taken.incrementAndGet();
        }

        @Override
        public void onBufferReleaseToPoolEvent(int size) {
            returned.incrementAndGet();
        }

        @Override
        public String toString() {
            return "taken " + taken + ", returned " + returned + ", allocated outside the pools " + allocatedOutside;
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"pooled", "direct"})
    void everyBufferTakenFromAPoolGoesBackOnceTheExchangesAreOver(String manager) throws Exception {
        try (TestUpstream upstream = TestUpstream.start();
             ProxyHarness proxy = ProxyHarness.forUpstream(upstream.url(""),
                     "proxy.buffers.memory-manager = \"" + manager + "\"\n")) {
            PooledMemoryManager memory = (PooledMemoryManager) proxy.kodiak().memoryManager();
            Counts counts = new Counts();
            memory.getMonitoringConfig().addProbes(counts);

            try (RawHttp raw = new RawHttp(proxy.port())) {
                // A small exchange: head and body in one read each way, copied into one write.
                raw.send("GET /headers/small HTTP/1.1\r\nHost: a\r\n\r\n");
                RawHttp.Response small = raw.read();
                assertEquals(200, small.status());
                assertEquals("GET /headers/small", small.bodyText().lines().findFirst().orElseThrow());

                // A 10 KB request body with its head: a slice of the first read, chained after the head.
                byte[] tenK = pattern(10_000);
                raw.send(("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Type: application/octet-stream\r\n"
                        + "Content-Length: " + tenK.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                raw.send(tenK);
                RawHttp.Response echoed = raw.read();
                assertEquals(200, echoed.status());
                assertArrayEquals(tenK, echoed.body);

                // A chunked request body re-framed chunk by chunk (small chunks copied, large ones chained).
                byte[] big = pattern(300_000);
                raw.send(("POST /digest HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                raw.send(chunked(big, 3_000, 70_000, 100));
                RawHttp.Response digest = raw.read();
                assertEquals(200, digest.status());
                assertEquals("sha256=" + Patterns.sha256(new ByteArrayInputStream(big)) + " bytes=" + big.length,
                        digest.bodyText());

                // Large responses over several reads, delimited by length and by chunks.
                raw.send("GET /bytes/300000 HTTP/1.1\r\nHost: a\r\n\r\n");
                assertEquals(Patterns.sha256Of(300_000), Patterns.sha256(new ByteArrayInputStream(raw.read().body)));
                raw.send("GET /bytes/200000?chunked=1 HTTP/1.1\r\nHost: a\r\n\r\n");
                assertEquals(Patterns.sha256Of(200_000), Patterns.sha256(new ByteArrayInputStream(raw.read().body)));

                // Two requests in one read: the second waits, unread, in the first's read buffer.
                raw.send("GET /headers/one HTTP/1.1\r\nHost: a\r\n\r\nGET /headers/two HTTP/1.1\r\nHost: a\r\n\r\n");
                assertEquals("GET /headers/one", raw.read().bodyText().lines().findFirst().orElseThrow());
                assertEquals("GET /headers/two", raw.read().bodyText().lines().findFirst().orElseThrow());
            }
            try (RawHttp bad = new RawHttp(proxy.port())) {
                // Refused by the codec: the read buffer is dropped with the connection.
                bad.send("GET /x HTTP/1.1\r\nHost: a\r\nBad Header: 1\r\n\r\n");
                assertEquals(400, bad.read().status());
            }

            Await.await(() -> counts.taken.get() > 0 && counts.returned.get() == counts.taken.get(),
                    () -> "every buffer back in its pool: " + counts);
            assertEquals(0, counts.allocatedOutside.get(), () -> "the pools were large enough for this test: " + counts);
        }
    }

    private static byte[] pattern(int length) throws Exception {
        return Patterns.stream(length).readAllBytes();
    }

    /** {@code body} in chunks of the given sizes, in turn, then the last chunk. */
    private static byte[] chunked(byte[] body, int... sizes) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int at = 0;
        for (int i = 0; at < body.length; i++) {
            int n = Math.min(sizes[i % sizes.length], body.length - at);
            out.writeBytes((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.writeBytes(Arrays.copyOfRange(body, at, at + n));
            out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
            at += n;
        }
        out.writeBytes("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        return out.toByteArray();
    }
}
