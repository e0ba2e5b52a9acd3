package io.kodiak.support;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A byte-level HTTP/1.1 client for what java.net.http will not send: malformed requests,
 * pipelining, explicit framing, Expect: 100-continue. Every read has a socket timeout, so a
 * proxy that hangs fails the test instead of stalling it.
 */
public final class RawHttp implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    public RawHttp(int port) throws IOException {
        this(TestTls.connect(port));
    }

    /** Over a connection the test opened itself (with its own socket options, say). */
    public RawHttp(Socket connected) throws IOException {
        socket = connected;
        socket.setSoTimeout(20_000);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    public RawHttp send(String ascii) throws IOException {
        out.write(ascii.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        return this;
    }

    public RawHttp send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
        return this;
    }

    /**
     * Writes one byte per TCP segment (Nagle off), each only once the proxy has made a read after the one
     * before ({@code reads} counts them): the proxy parses the message across as many reads as it has bytes,
     * on any machine. (A pause between writes does not show that: a loaded proxy may find them all at once.)
     */
    public RawHttp sendByteByByte(String ascii, ProxyReads reads) throws IOException {
        socket.setTcpNoDelay(true);
        int port = socket.getLocalPort();
        for (byte b : ascii.getBytes(StandardCharsets.ISO_8859_1)) {
            long before = reads.reads(port);
            out.write(b);
            out.flush();
            try {
                reads.awaitReadAfter(port, before);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
        }
        return this;
    }

    /** Reads one response; {@code head} when it answers a HEAD request (no body follows). */
    public Response read(boolean head) throws IOException {
        Response response = readHead();
        int status = response.status();
        if (head || status == 204 || status == 304 || status / 100 == 1) {
            return response;
        }
        if ("chunked".equalsIgnoreCase(response.header("transfer-encoding"))) {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            while (true) {
                int size = Integer.parseInt(line().split(";")[0].trim(), 16);
                if (size == 0) {
                    for (String trailer; !(trailer = line()).isEmpty(); ) {
                        int colon = trailer.indexOf(':');
                        response.trailers.add(new String[] {trailer.substring(0, colon), trailer.substring(colon + 1).trim()});
                    }
                    break;
                }
                body.write(in.readNBytes(size));
                line();
            }
            response.body = body.toByteArray();
        } else if (response.header("content-length") != null) {
            int length = Integer.parseInt(response.header("content-length"));
            response.body = in.readNBytes(length);
            if (response.body.length < length) {
                throw new EOFException("body ended after " + response.body.length + " of " + length + " bytes");
            }
        } else {
            response.body = in.readAllBytes();
        }
        return response;
    }

    /** Reads one response's status line and fields, leaving its body unread (see {@link #bodyStream}). */
    public Response readHead() throws IOException {
        String statusLine = line();
        List<String[]> headers = new ArrayList<>();
        for (String h; !(h = line()).isEmpty(); ) {
            int colon = h.indexOf(':');
            headers.add(new String[]{h.substring(0, colon).trim().toLowerCase(Locale.ROOT), h.substring(colon + 1).trim()});
        }
        return new Response(statusLine, headers);
    }

    /**
     * The body of {@code response} (from {@link #readHead}) as a stream, for one too large to hold:
     * Content-Length or chunked (decoded, trailers skipped).
     */
    public InputStream bodyStream(Response response) {
        if (!"chunked".equalsIgnoreCase(response.header("transfer-encoding"))) {
            return bodyStream(Long.parseLong(response.header("content-length")));
        }
        return new BodyStream() {
            private long left;
            private boolean done;

            @Override
            public int read(byte[] buffer, int offset, int max) throws IOException {
                if (left == 0 && !done) {
                    int size = Integer.parseInt(line().split(";")[0].trim(), 16);
                    if (size == 0) {
                        while (!line().isEmpty()) {
                            // trailer fields, ignored
                        }
                        done = true;
                    }
                    left = size;
                }
                if (done) {
                    return -1;
                }
                int n = in.read(buffer, offset, (int) Math.min(max, left));
                if (n == -1) {
                    throw new EOFException("chunk ended " + left + " bytes short");
                }
                left -= n;
                if (left == 0) {
                    line();
                }
                return n;
            }
        };
    }

    /** The next {@code length} bytes as a stream, for a body too large to hold (after {@link #readHead}). */
    public InputStream bodyStream(long length) {
        return new BodyStream() {
            private long left = length;

            @Override
            public int read(byte[] buffer, int offset, int max) throws IOException {
                if (left == 0) {
                    return -1;
                }
                int n = in.read(buffer, offset, (int) Math.min(max, left));
                if (n == -1) {
                    throw new EOFException("body ended " + left + " bytes short of " + length);
                }
                left -= n;
                return n;
            }
        };
    }

    /** The next {@code n} raw bytes (after a 101, say). */
    public byte[] readBytes(int n) throws IOException {
        return in.readNBytes(n);
    }

    public Response read() throws IOException {
        return read(false);
    }

    /** True when the proxy closed the connection (EOF or reset) within the socket timeout; false on a timeout or a byte. */
    public boolean closedByPeer() {
        try {
            return in.read() == -1;
        } catch (SocketTimeoutException stillOpen) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    /** Reads and drops everything until the proxy closes: true at the end of the stream (or a reset), false on the socket timeout. */
    public boolean drainedToTheEnd() {
        byte[] sink = new byte[4096];
        try {
            while (in.read(sink) != -1) {
                // dropped
            }
            return true;
        } catch (SocketTimeoutException stillOpen) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    /** True when nothing arrives and the connection stays open for {@code millis}; a byte that does arrive is consumed. */
    public boolean quietFor(int millis) throws IOException {
        int timeout = socket.getSoTimeout();
        socket.setSoTimeout(millis);
        try {
            in.read();
            return false;
        } catch (SocketTimeoutException quiet) {
            return true;
        } finally {
            socket.setSoTimeout(timeout);
        }
    }

    private String line() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b; (b = in.read()) != '\n'; ) {
            if (b == -1) {
                throw new EOFException("connection closed mid-line: " + line);
            }
            if (b != '\r') {
                line.write(b);
            }
        }
        return line.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    public static final class Response {
        public final String statusLine;
        public final List<String[]> headers;
        public byte[] body = new byte[0];
        /** A chunked body's trailer fields, name and value. */
        public final List<String[]> trailers = new java.util.ArrayList<>();

        Response(String statusLine, List<String[]> headers) {
            this.statusLine = statusLine;
            this.headers = headers;
        }

        public int status() {
            return Integer.parseInt(statusLine.split(" ")[1]);
        }

        public String header(String name) {
            for (String[] h : headers) {
                if (h[0].equalsIgnoreCase(name)) {
                    return h[1];
                }
            }
            return null;
        }

        public String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            return statusLine + " " + headers.size() + " headers, " + body.length + " bytes";
        }
    }

    /** A body read in blocks; one byte at a time is a block of one. */
    private abstract static class BodyStream extends InputStream {
        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) == -1 ? -1 : one[0] & 0xff;
        }

        @Override
        public abstract int read(byte[] buffer, int offset, int max) throws IOException;
    }
}
