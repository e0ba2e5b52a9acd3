package io.kodiak.forward;

import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RawHttp;
import io.kodiak.support.TestTls;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The early-response path: the upstream answers before the request body has finished (the
 * exchange's EARLY_RESPONSE phase). An answer that ends the exchange while the client still sends
 * is relayed whole, the upstream connection (mid-request) is closed, the rest of the body is
 * dropped, and the client's connection serves the next request; an answer that begins early and
 * goes on while the upstream reads lets the whole body through, both ways at once.
 */
class EarlyResponseTest {
    private static final int BODY = 256 * 1024;
    private static final byte[] CHUNK = new byte[16 * 1024];

    private ProxyHarness proxy;
    private ServerSocket upstream;

    @AfterEach
    void close() throws IOException {
        if (proxy != null) {
            proxy.close();
        }
        if (upstream != null) {
            upstream.close();
        }
    }

    @Test
    void anAnswerThatClosesBeforeTheBodyEndsReachesTheClientAndTheConnectionGoesOn() throws Exception {
        upstream = TestTls.listen(10);
        CompletableFuture<String> heard = CompletableFuture.supplyAsync(() -> {
            try (Socket s = upstream.accept()) {
                // No second connection: the next request finds the upstream gone.
                upstream.close();
                String head = readHead(s.getInputStream());
                s.getOutputStream().write(("HTTP/1.1 413 Payload Too Large\r\nContent-Length: 8\r\nConnection: close\r\n\r\n"
                        + "too big!").getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
                // Closes its sending side, and reads what still comes until the proxy closes (a close
                // with unread bytes would be a reset, which may overtake the answer).
                s.shutdownOutput();
                s.getInputStream().transferTo(OutputStream.nullOutputStream());
                return head;
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        proxy = ProxyHarness.forUpstream(TestTls.scheme() + "://127.0.0.1:" + upstream.getLocalPort() + "/", "");
        try (RawHttp client = new RawHttp(proxy.port())) {
            client.send("POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: " + BODY + "\r\n\r\n");
            client.send(CHUNK);
            RawHttp.Response answer = client.read();
            assertEquals(413, answer.status());
            assertEquals("too big!", answer.bodyText());
            assertTrue(heard.get(10, TimeUnit.SECONDS).startsWith("POST /upload HTTP/1.1"));
            // The rest of the body is read and dropped; then the connection carries the next request.
            sendTheRest(client);
            client.send("GET /next HTTP/1.1\r\nHost: a\r\n\r\n");
            // The upstream is gone: the next request's answer is Kodiak's own, on the same connection.
            assertEquals(502, client.read().status());
        }
    }

    @Test
    void aResponseThatStreamsWhileTheBodyStillComesLetsTheWholeBodyThrough() throws Exception {
        upstream = TestTls.listen(10);
        CompletableFuture<Integer> bodyBytes = CompletableFuture.supplyAsync(() -> {
            try (Socket s = upstream.accept()) {
                upstream.close();
                InputStream in = s.getInputStream();
                readHead(in);
                OutputStream out = s.getOutputStream();
                // The answer begins at once, the body still to come (an echo, a transcoder).
                out.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nearly\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                int total = (int) in.readNBytes(BODY).length;
                String count = " " + total;
                out.write((Integer.toHexString(count.length()) + "\r\n" + count + "\r\n0\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.flush();
                return total;
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        proxy = ProxyHarness.forUpstream(TestTls.scheme() + "://127.0.0.1:" + upstream.getLocalPort() + "/", "");
        try (RawHttp client = new RawHttp(proxy.port())) {
            client.send("POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: " + BODY + "\r\n\r\n");
            client.send(CHUNK);
            RawHttp.Response head = client.readHead();
            assertEquals(200, head.status());
            InputStream answer = client.bodyStream(head);
            // readNBytes(byte[], ...): the one-argument form asks for 0 more bytes at the end, which
            // would wait for the next chunk's size line.
            byte[] first = new byte[5];
            assertEquals(5, answer.readNBytes(first, 0, 5));
            assertEquals("early", new String(first, StandardCharsets.US_ASCII));
            sendTheRest(client);
            assertEquals(BODY, bodyBytes.get(10, TimeUnit.SECONDS), "body bytes the upstream received");
            assertEquals(" " + BODY, new String(answer.readAllBytes(), StandardCharsets.US_ASCII));
            // The exchange ended whole: the connection carries the next request.
            client.send("GET /next HTTP/1.1\r\nHost: a\r\n\r\n");
            assertEquals(502, client.read().status());
        }
    }

    @Test
    void aCompleteAnswerBeforeTheBodyEndsCutsTheUpstreamAndDropsTheRestOfTheBody() throws Exception {
        upstream = TestTls.listen(10);
        CompletableFuture<Integer> bodyBytes = CompletableFuture.supplyAsync(() -> {
            try (Socket s = upstream.accept()) {
                upstream.close();
                InputStream in = s.getInputStream();
                readHead(in);
                s.getOutputStream().write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nearly".getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
                // Reads on until the proxy closes: the exchange is over once the answer is whole.
                return (int) in.transferTo(OutputStream.nullOutputStream());
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        proxy = ProxyHarness.forUpstream(TestTls.scheme() + "://127.0.0.1:" + upstream.getLocalPort() + "/", "");
        try (RawHttp client = new RawHttp(proxy.port())) {
            client.send("POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: " + BODY + "\r\n\r\n");
            client.send(CHUNK);
            RawHttp.Response answer = client.read();
            assertEquals(200, answer.status());
            assertEquals("early", answer.bodyText());
            // The proxy closed its upstream connection with the body unfinished: never pooled mid-request.
            assertTrue(bodyBytes.get(10, TimeUnit.SECONDS) < BODY, "the upstream was not sent the rest of the body");
            sendTheRest(client);
            client.send("GET /next HTTP/1.1\r\nHost: a\r\n\r\n");
            assertEquals(502, client.read().status());
        }
    }

    /** The body's bytes after its first chunk (the head and one chunk went first). */
    private static void sendTheRest(RawHttp client) throws IOException {
        for (int sent = CHUNK.length; sent < BODY; sent += CHUNK.length) {
            client.send(CHUNK);
        }
    }

    /** Reads up to the end of a head (CRLF CRLF), returns it. */
    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0) {
            head.write(b);
            byte[] bytes = head.toByteArray();
            int n = bytes.length;
            if (n >= 4 && Arrays.equals(Arrays.copyOfRange(bytes, n - 4, n), new byte[] {'\r', '\n', '\r', '\n'})) {
                break;
            }
        }
        return head.toString(StandardCharsets.US_ASCII);
    }
}
