package io.kodiak.tls;

import javax.net.ssl.SSLSocket;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/** Raw requests over a TLS socket, for tests that need the handshake in their own hands. */
final class TlsTalk {
    private TlsTalk() {
    }

    /** Writes {@code request} and reads everything until the proxy closes (send Connection: close). */
    static String exchange(SSLSocket socket, String request) throws IOException {
        socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        InputStream in = socket.getInputStream();
        StringBuilder response = new StringBuilder();
        byte[] buffer = new byte[4096];
        for (int n; (n = in.read(buffer)) > 0; ) {
            response.append(new String(buffer, 0, n, StandardCharsets.ISO_8859_1));
        }
        return response.toString();
    }

    /** Reads up to and including the blank line that ends a head, and no further; less if the stream ends first. */
    static String readHead(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                break;
            }
            head.append((char) b);
        }
        return head.toString();
    }
}
