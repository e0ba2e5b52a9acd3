package io.kodiak.transport;

import io.kodiak.loop.EventLoop;
import io.kodiak.support.OnLoop;
import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import io.kodiak.support.TestUpstream;
import org.glassfish.grizzly.Buffer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Kodiak's own memory manager: buffers sized to what is asked, memory back in its pool once the
 * buffer and every slice of it are disposed (and only then), never back when another thread
 * touched it, and nothing left out after a run of exchanges: every buffer is counted back.
 */
class LoopMemoryManagerTest {

    @Test
    void aBufferFitsWhatIsAskedAndItsMemoryIsReusedOnceReleased() {
        LoopMemoryManager memory = new LoopMemoryManager();
        Buffer first = memory.allocate(300);
        assertEquals(300, first.remaining());
        assertEquals(512, first.capacity(), "the smallest size class that holds it");
        assertTrue(first.isDirect());
        first.dispose();
        assertEquals(0, memory.outstanding());
        Buffer second = memory.allocate(100);
        assertEquals(1, memory.made(), "the released memory served the next allocation");
        second.dispose();
        memory.allocateAtLeast(3000).dispose();
        assertEquals(2, memory.made());
        assertEquals(0, memory.outstanding());
    }

    @Test
    void memoryGoesBackOnlyOnceEverySliceIsDisposed() {
        LoopMemoryManager memory = new LoopMemoryManager();
        Buffer read = memory.allocate(100);
        read.put("head and body".getBytes(StandardCharsets.US_ASCII)).flip();
        Buffer body = read.slice(5, 13);
        Buffer copy = body.duplicate();
        read.dispose();
        body.dispose();
        assertEquals(1, memory.outstanding(), "a duplicate still holds it");
        Buffer other = memory.allocate(100);
        other.put(0, (byte) 'X');
        assertEquals("and body", copy.toStringContent(StandardCharsets.US_ASCII), "nobody else was given its memory");
        other.dispose();
        copy.dispose();
        copy.dispose();
        assertEquals(0, memory.outstanding(), "a second dispose counts nothing");
        assertEquals(2, memory.made());
    }

    @Test
    void memoryTouchedByAnotherThreadIsNeverPooledAgain() throws Exception {
        LoopMemoryManager memory = new LoopMemoryManager();
        Buffer read = memory.allocate(100);
        Buffer piece = read.slice(0, 10);
        Thread other = new Thread(piece::dispose);
        other.start();
        other.join();
        read.dispose();
        Buffer next = memory.allocate(100);
        assertEquals(2, memory.made(), "the memory went to the collector, not back to the pool");
        next.dispose();
    }

    @Test
    void aLargerRequestIsServedOutsideThePools() {
        LoopMemoryManager memory = new LoopMemoryManager();
        Buffer large = memory.allocate(300_000);
        assertEquals(300_000, large.remaining());
        large.dispose();
        assertEquals(0, memory.made());
        assertEquals(0, memory.outstanding());
    }

    @Test
    void everyBufferOfARunOfExchangesIsCountedBack() throws Exception {
        try (TestUpstream upstream = TestUpstream.start();
             ProxyHarness proxy = ProxyHarness.forUpstream(upstream.url("/"), "proxy.buffers.memory-manager = \"loop\"\n"
                     + "proxy.listener.selector-threads = 1\n")) {
            LoopMemoryManager memory = (LoopMemoryManager) proxy.kodiak().memoryManager();
            EventLoop loop = proxy.kodiak().loops().get(0);
            byte[] body = new byte[20_000];
            for (int connection = 0; connection < 3; connection++) {
                try (RawHttp raw = new RawHttp(proxy.port())) {
                    for (int i = 0; i < 20; i++) {
                        raw.send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: " + body.length + "\r\n\r\n");
                        raw.send(body);
                        assertEquals(200, raw.read().status());
                        raw.send("GET /bytes/3000 HTTP/1.1\r\nHost: a\r\n\r\n");
                        assertEquals(200, raw.read().status());
                    }
                }
            }
            assertTrue(onLoop(loop, memory::made) > 0, "the loop's reads came from its pools");
            // The client connections are closed; the pooled upstream connections stay, holding nothing.
            io.kodiak.support.Await.await(() -> call(loop, memory::outstanding) == 0,
                    () -> call(loop, memory::outstanding) + " buffers still out");
            assertFalse(call(loop, memory::made) > 64, "memory is reused, not made per request: " + call(loop, memory::made));
        }
    }

    private static long call(EventLoop loop, Callable<Long> task) {
        try {
            return onLoop(loop, task);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static <T> T onLoop(EventLoop loop, Callable<T> task) throws Exception {
        return OnLoop.call(loop, task);
    }
}
