package io.kodiak.forward;

import io.kodiak.support.RawHttp;
import io.kodiak.support.RecordedProxy;
import io.kodiak.support.RecordingUpstream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static io.kodiak.support.Await.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Chunked request bodies (RFC 9112 §7.1) through a real Kodiak to an upstream that reads what it
 * receives with a strict reference parser. A chunk is exactly chunk-size octets and CRLF: anything
 * else is 400 and a closed connection, and the bytes after the broken chunk never reach the
 * upstream, where they would be a request the client never sent as one.
 */
class ChunkedRequestTest {
    private static final String HEAD = "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n";
    private static final String BROKEN = "malformed request body";

    private RecordedProxy proxy;

    @BeforeEach
    void start() throws IOException {
        proxy = RecordedProxy.start();
    }

    @AfterEach
    void stop() throws IOException {
        proxy.close();
    }

    @Test
    void bytesAfterAShortChunkSizeAreNotSmuggledAsASecondRequest() throws Exception {
        proxy.assertRefused(HEAD + "3\r\nhello\r\n0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n", 400, BROKEN);
        assertFalse(proxy.upstream().rawBytes().contains("smuggled"), proxy.upstream().rawBytes());
    }

    /**
     * Each byte in its own read, up to the first one the framing does not allow (the fourth data
     * byte of a 3-byte chunk): the decision does not depend on where reads split the body. The
     * client stops there, since Kodiak closes the connection with its answer.
     */
    @Test
    void theSmugglingAttemptFailsTheSameWayWhenItArrivesOneByteAtATime() throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            raw.sendByteByByte(HEAD + "3\r\nhell", proxy.reads());
            RawHttp.Response response = raw.read();
            assertEquals(400, response.status());
            assertTrue(response.bodyText().startsWith("400 " + BROKEN), response.bodyText());
            assertTrue(raw.closedByPeer());
        }
        await(() -> proxy.upstream().openConnections() == 0, "the upstream connection to close");
        assertEquals(List.of(), proxy.upstream().received());
        assertEquals(List.of(), proxy.upstream().violations());
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "5\r\nhelloXY\r\n0\r\n\r\n",       // data longer than its size
            "5\r\nhell\r\n0\r\n\r\n",          // data shorter than its size
            "5\r\nhello0\r\n\r\n",             // no CRLF after the data
            "5\nhello\n0\n\n",                 // LF alone ends every line
            "5\r\nhello\n0\r\n\r\n",           // LF alone after the data
            "5\nhello\r\n0\r\n\r\n",           // LF alone after the size
            "5\r\nhello\r\n0\n\n",             // LF alone after the last chunk
            "0\n\n",
            "5\r\nhello\r\n0\r\n\n",           // LF alone ends the trailer section
            " 5\r\nhello\r\n0\r\n\r\n",        // whitespace before the size
            "5 \r\nhello\r\n0\r\n\r\n",        // whitespace after the size, no extension
            "0x5\r\nhello\r\n0\r\n\r\n",
            "+5\r\nhello\r\n0\r\n\r\n",
            "-5\r\nhello\r\n0\r\n\r\n",
            "\r\nhello\r\n0\r\n\r\n",          // no size at all
            "g\r\nhello\r\n0\r\n\r\n",
            "fffffffffffffffff\r\nhello\r\n0\r\n\r\n", // a size no length can hold
            "5;a=\u0001\r\nhello\r\n0\r\n\r\n",  // a control byte in an extension
            "5;a\nb\r\nhello\r\n0\r\n\r\n",    // LF inside the chunk-size line
            "5\r\nhello\r\n0\r\nX-T: a\rb\r\n\r\n", // bare CR in a trailer value
            "5\r\nhello\r\n0\r\nX-T\r\n\r\n",  // trailer line without a colon
            "5\r\nhello\r\n0\r\nX T: 1\r\n\r\n", // trailer name that is not a token
            "5\r\nhello\r\n0\r\nX-T: \u0000\r\n\r\n",
    })
    void malformedChunkedFramingGets400AndNothingIsForwarded(String body) throws Exception {
        proxy.assertRefused(HEAD + body, 400, BROKEN);
    }

    @Test
    void extensionsAreAcceptedAndDroppedWhenForwarding() throws Exception {
        RecordingUpstream.Received received = proxy.assertForwarded(HEAD
                + "5;name=value\r\nhello\r\n6 ; a = \"q;x\"\t;b\r\n world\r\n0;last\r\n\r\n");
        assertEquals("hello world", received.body());
        assertFalse(proxy.upstream().rawBytes().contains("name=value"), proxy.upstream().rawBytes());
    }

    @Test
    void leadingZerosAndUpperCaseHexAreSizes() throws Exception {
        RecordingUpstream.Received received = proxy.assertForwarded(HEAD
                + "0005\r\nhello\r\n00000000000000000000A\r\n0123456789\r\n0000\r\n\r\n");
        assertEquals("hello0123456789", received.body());
    }

    @Test
    void trailerFieldsAreAcceptedAndDropped() throws Exception {
        RecordingUpstream.Received received = proxy.assertForwarded(HEAD
                + "5\r\nhello\r\n0\r\nX-Checksum: abc\r\nX-More: \t1\r\n\r\n");
        assertEquals("hello", received.body());
        assertFalse(proxy.upstream().rawBytes().contains("X-Checksum"));
    }

    @Test
    void aValidBodyArrivingOneByteAtATimeIsForwardedWhole() throws Exception {
        RecordingUpstream.Received received = proxy.assertForwardedByteByByte(HEAD
                + "5;ext=1\r\nhello\r\n1\r\n!\r\n0\r\nX-T: 1\r\n\r\n");
        assertEquals("hello!", received.body());
    }

    @Test
    void aChunkedCodingNamedInAnotherCaseIsChunkedHoweverTheHeadArrives() throws Exception {
        RecordingUpstream.Received received = proxy.assertForwardedByteByByte(
                "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: Chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n");
        assertEquals("hello", received.body());
    }

    @Test
    void aChunkLineOverTheLimitGets400() throws Exception {
        proxy.assertRefused(HEAD + "5;" + "a".repeat(5000) + "\r\nhello\r\n0\r\n\r\n", 400, BROKEN);
    }

    /**
     * A chunk-size line of 1 MiB: Kodiak stops reading it after 4 KiB and closes, so it holds no
     * more than that, whether or not the client is still writing when the close arrives.
     */
    @Test
    void aMebibyteChunkLineEndsTheConnectionAndTheNextClientIsServed() throws Exception {
        try (Socket socket = io.kodiak.support.TestTls.connect(proxy.port())) {
            socket.setSoTimeout(20_000);
            OutputStream out = socket.getOutputStream();
            out.write((HEAD + "5;").getBytes(StandardCharsets.ISO_8859_1));
            byte[] extension = "a".repeat(64 * 1024).getBytes(StandardCharsets.ISO_8859_1);
            try {
                for (int i = 0; i < 16; i++) {
                    out.write(extension);
                }
                out.flush();
            } catch (IOException closedByProxy) {
                // expected once Kodiak has answered and closed
            }
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            assertTrue(answer.isEmpty() || answer.startsWith("HTTP/1.1 400"), answer);
        } catch (java.net.SocketException reset) {
            // the close reset the connection while the client was still writing: also an end
        }
        proxy.assertServesNextClient();
        assertEquals(1, proxy.upstream().received().size(), "only the next client's request");
    }

    @Test
    void aPipelinedRequestAfterAValidChunkedBodyIsItsOwnRequest() throws Exception {
        try (RawHttp raw = new RawHttp(proxy.port())) {
            raw.send(HEAD + "5\r\nhello\r\n0\r\n\r\nGET /second HTTP/1.1\r\nHost: a\r\n\r\n");
            assertEquals("hello", raw.read().bodyText());
            assertEquals("ok", raw.read().bodyText());
        }
        List<RecordingUpstream.Received> received = proxy.upstream().received();
        assertEquals(2, received.size());
        assertEquals("hello", received.get(0).body());
        assertEquals("/second", received.get(1).target());
        assertNull(received.get(1).header("transfer-encoding"));
    }
}
