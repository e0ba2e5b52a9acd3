package io.kodiak.forward;

import io.kodiak.support.Await;
import io.kodiak.support.ProxyHarness;
import io.kodiak.support.RecordingUpstream;
import io.kodiak.support.StrictParser;
import org.eclipse.jetty.http.HttpCompliance;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Request smuggling, looked for end to end: mutated requests (a few pipelined per connection)
 * go through a real Kodiak to an upstream that parses what it receives with Jetty's strict
 * parser ({@link StrictParser}); the same client bytes are parsed by Jetty directly. What reaches the
 * upstream must be a prefix of what the strict parser reads in the client's bytes, request by
 * request (method, target, body), and must itself parse without a violation. Kodiak may refuse
 * more than Jetty; it may never forward a request Jetty would not see, or see differently.
 * Seeded and bounded; {@code -Dseed=N -Dcases=N} runs another or a longer sample.
 */
class RequestDifferentialTest {
    private static final String[] SEEDS = {
            "GET /a?b=c HTTP/1.1\r\nHost: a\r\nX-A: 1\r\n\r\n",
            "POST /p HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello",
            "POST /c HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n0\r\nT: 1\r\n\r\n",
            "PUT /u HTTP/1.1\r\nHost: a:8080\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n",
            "GET /s HTTP/1.1\r\nHost: a\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: a\r\n\r\n",
    };
    private static final byte[] ALPHABET = "\r\n \t:;=,\"/0123456789aAfFzZ-+?#%\u0000\u0001\u007f\u0080HTP."
            .getBytes(StandardCharsets.ISO_8859_1);

    /** One request as a parser read it: what must match between the client's bytes and the upstream's. */
    private record Request(String method, String target, String body) {
    }

    @Test
    // 300 cases, each through a Kodiak and an upstream of its own: the default 60 s (a hang guard for one
    // exchange) became a time budget for all 300 here, run out on a loaded machine (seen at 60 s in the
    // direct-buffers run while the plain run took 5 s). Each case's own waits stay bounded (socket timeouts).
    @org.junit.jupiter.api.Timeout(value = 10, unit = java.util.concurrent.TimeUnit.MINUTES)
    void kodiakForwardsOnlyWhatAStrictParserReadsTheSameWay() throws Exception {
        Random random = new Random(Long.getLong("seed", 20261124));
        int cases = Integer.getInteger("cases", 300);
        int forwarded = 0;
        for (int i = 0; i < cases; i++) {
            byte[] sent = mutate(SEEDS[random.nextInt(SEEDS.length)] + SEEDS[random.nextInt(SEEDS.length)], random);
            List<RecordingUpstream.Received> got = forward(sent);
            List<Request> strict = strictReading(sent);
            assertTrue(got.size() <= strict.size(), "Kodiak forwarded "
                    + got.stream().map(g -> g.method() + " " + g.target()).toList()
                    + ", the strict parser reads " + strict + " in " + shown(sent));
            for (int r = 0; r < got.size(); r++) {
                RecordingUpstream.Received g = got.get(r);
                assertEquals(strict.get(r), new Request(g.method(), g.target(), g.body()), "request " + r + " of " + shown(sent));
            }
            forwarded += got.size();
        }
        // The mutations must leave enough requests intact for the comparison to mean something.
        assertTrue(forwarded > cases / 2, "requests forwarded: " + forwarded);
    }

    /**
     * What reached an upstream of its own when {@code sent} went through a Kodiak of its own (a
     * request Kodiak was still writing as the client left cannot then be taken for the next
     * case's), as the upstream's strict parser read it, which must have refused nothing.
     */
    private static List<RecordingUpstream.Received> forward(byte[] sent) throws Exception {
        try (RecordingUpstream upstream = new RecordingUpstream(RecordingUpstream.ECHO)) {
            try (ProxyHarness proxy = ProxyHarness.forUpstream(upstream.url("/"), "proxy.listener.idle-timeout = 2s\n")) {
                exchange(proxy.port(), sent);
            }
            // Kodiak has stopped and closed its upstream connections: once the upstream has read them, all is in.
            Await.await(() -> upstream.openConnections() == 0, "the upstream to read all it was sent");
            assertEquals(List.of(), upstream.violations(), "the strict parser refused what Kodiak forwarded for " + shown(sent));
            return List.copyOf(upstream.received());
        }
    }

    /** Sends the bytes, half-closes, and reads whatever comes back until Kodiak closes. */
    private static void exchange(int port, byte[] sent) throws IOException {
        try (Socket socket = io.kodiak.support.TestTls.connect(port)) {
            socket.setSoTimeout(10_000);
            try {
                socket.getOutputStream().write(sent);
                socket.shutdownOutput();
            } catch (SocketException closedEarly) {
                // Kodiak refused the start and closed while the rest was being written
            }
            InputStream in = socket.getInputStream();
            byte[] sink = new byte[4096];
            try {
                while (in.read(sink) != -1) {
                    // answers are not compared: what reached the upstream is
                }
            } catch (SocketException reset) {
                // a refusal's close may reset unread bytes
            } catch (SocketTimeoutException hang) {
                throw new AssertionError("Kodiak neither answered nor closed within 10 s for " + shown(sent));
            }
        }
    }

    /** The requests Jetty's strict parser reads in {@code sent}, up to the first it refuses or that is incomplete. */
    private static List<Request> strictReading(byte[] sent) {
        // Kodiak serves HTTP/1.2 to 1.9 as 1.1 (RFC 9110 §2.5, as nginx does), Jetty refuses them:
        // Jetty reads them as 1.1 here (a same-length rewrite, so no framing moves).
        String text = new String(sent, StandardCharsets.ISO_8859_1).replaceAll("HTTP/1\\.[2-9](\r?\n)", "HTTP/1.1$1");
        // RFC 9110 mode, plus LF alone ending a head line, which RFC 9112 §2.2 lets a recipient
        // accept and Kodiak does (it writes every head anew with CRLF).
        return StrictParser.readAll(text.getBytes(StandardCharsets.ISO_8859_1), HttpCompliance.from("RFC9110,LF_HEADER_TERMINATION"))
                .stream().map(p -> new Request(p.request().method(), unreservedDecoded(p.request().target()), p.request().body())).toList();
    }

    /**
     * The same target as Kodiak forwards it: RFC 3986 §6.2.2.2 makes "%61" and "a" one URI, and
     * Kodiak routes and forwards a path with its percent-encoded unreserved characters decoded.
     */
    private static String unreservedDecoded(String target) {
        int query = target.indexOf('?');
        String path = query < 0 ? target : target.substring(0, query);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("%([0-9A-Fa-f]{2})").matcher(path);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            char c = (char) Integer.parseInt(m.group(1), 16);
            boolean unreserved = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "-._~".indexOf(c) >= 0;
            m.appendReplacement(out, java.util.regex.Matcher.quoteReplacement(unreserved ? String.valueOf(c) : m.group()));
        }
        m.appendTail(out);
        return query < 0 ? out.toString() : out + target.substring(query);
    }

    private static byte[] mutate(String seed, Random random) {
        byte[] bytes = seed.getBytes(StandardCharsets.ISO_8859_1);
        int mutations = random.nextInt(4);
        for (int m = 0; m < mutations; m++) {
            int at = random.nextInt(bytes.length);
            byte b = ALPHABET[random.nextInt(ALPHABET.length)];
            ByteArrayOutputStream next = new ByteArrayOutputStream();
            next.write(bytes, 0, at);
            switch (random.nextInt(3)) {
                case 0 -> {
                    next.write(b);
                    next.write(bytes, at, bytes.length - at);
                }
                case 1 -> next.write(bytes, at + 1, bytes.length - at - 1);
                default -> {
                    next.write(b);
                    next.write(bytes, at + 1, bytes.length - at - 1);
                }
            }
            bytes = next.toByteArray();
        }
        return bytes;
    }

    private static String shown(byte[] sent) {
        StringBuilder text = new StringBuilder();
        for (byte b : sent) {
            int c = b & 0xff;
            text.append(c >= 0x20 && c < 0x7f ? String.valueOf((char) c) : String.format("\\x%02x", c));
        }
        return text.toString();
    }
}
