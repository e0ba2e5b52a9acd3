package io.kodiak.transport;

import io.kodiak.support.Await;
import io.kodiak.support.OnLoop;
import io.kodiak.support.ProxyHarness;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What an exchange holds of the loop's pooled buffers while its answer streams: nothing. Once the
 * response's head has gone to the client the request can never be sent again, so its prepared
 * head goes back to the pool then, not at the end of a body that may take hours (a download, an
 * event stream, a tunnel). Counted by the loop memory manager (one loop, so one pool).
 */
class StreamedAnswerBuffersTest {

    private static long outstanding(ProxyHarness proxy) throws Exception {
        LoopMemoryManager memory = (LoopMemoryManager) proxy.kodiak().memoryManager();
        return OnLoop.call(proxy.kodiak().loops().get(0), memory::outstanding);
    }

    private static String readUntil(InputStream in, String marker) throws IOException {
        ByteArrayOutputStream seen = new ByteArrayOutputStream();
        while (!seen.toString(StandardCharsets.ISO_8859_1).contains(marker)) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("closed before " + marker + ": " + seen.toString(StandardCharsets.ISO_8859_1));
            }
            seen.write(b);
        }
        return seen.toString(StandardCharsets.ISO_8859_1);
    }

    @Test
    void aStreamingAnswerHoldsNoBufferOfItsRequest() throws Exception {
        try (ServerSocket upstream = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
             ProxyHarness proxy = ProxyHarness.start("""
                     proxy.listener.selector-threads = 1
                     proxy.buffers.memory-manager = "loop"
                     proxy.routes = [ { prefix = "/", upstream = "http://127.0.0.1:%d/" } ]
                     """.formatted(upstream.getLocalPort()))) {
            long before = outstanding(proxy);
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
                client.getOutputStream().write("GET /events HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                try (Socket server = upstream.accept()) {
                    readUntil(server.getInputStream(), "\r\n\r\n");
                    OutputStream out = server.getOutputStream();
                    // A head and the first event, then nothing: the answer is still streaming.
                    out.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nfirst\n\r\n"
                            .getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    readUntil(client.getInputStream(), "first\n");
                    Await.await(() -> quietly(proxy) <= before,
                            () -> "buffers outstanding while the answer streams: " + quietly(proxy) + ", before the request " + before);

                    out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    readUntil(client.getInputStream(), "0\r\n\r\n");
                }
            }
            Await.await(() -> quietly(proxy) <= before, () -> "buffers outstanding after the exchange: " + quietly(proxy));
            assertEquals(before, outstanding(proxy));
        }
    }

    private static long quietly(ProxyHarness proxy) {
        try {
            return outstanding(proxy);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
