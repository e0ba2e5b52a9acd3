package io.kodiak.support;

import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.http2.hpack.HpackDecoder;
import org.eclipse.jetty.http2.hpack.HpackEncoder;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * An h2c server on raw frames, scripted by the test: it accepts connections (each read from the
 * test's thread), checks the client's preface, and lets the test read what the proxy sent and
 * write exactly the frames it wants, malformed ones included.
 */
public final class H2Server implements AutoCloseable {
    public static final int DATA = 0, HEADERS = 1, RST_STREAM = 3, SETTINGS = 4, PING = 6, GOAWAY = 7, WINDOW_UPDATE = 8;
    public static final int END_STREAM = 1, END_HEADERS = 4, ACK = 1;
    public static final int SETTINGS_MAX_CONCURRENT_STREAMS = 3, SETTINGS_INITIAL_WINDOW_SIZE = 4;
    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    private final ServerSocket listener;
    private final BlockingQueue<Socket> accepted = new ArrayBlockingQueue<>(64);
    private final Thread acceptor;

    private H2Server() throws IOException {
        listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        acceptor = new Thread(() -> {
            try {
                while (true) {
                    accepted.add(listener.accept());
                }
            } catch (IOException closed) {
                // stopped
            }
        }, "h2-server-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public static H2Server start() throws IOException {
        return new H2Server();
    }

    public int port() {
        return listener.getLocalPort();
    }

    public String url() {
        return "http://127.0.0.1:" + port();
    }

    /** The next connection, its preface read and our SETTINGS ({@code settings}: id, value, ...) sent. */
    public Conn accept(int... settings) throws IOException, InterruptedException {
        Socket socket = accepted.poll(10, TimeUnit.SECONDS);
        if (socket == null) {
            throw new IOException("no connection from the proxy within 10 s");
        }
        Conn conn = new Conn(socket);
        byte[] preface = new byte[PREFACE.length];
        conn.in.readFully(preface);
        if (!Arrays.equals(preface, PREFACE)) {
            throw new IOException("not the client preface: " + new String(preface, StandardCharsets.ISO_8859_1));
        }
        ByteBuffer payload = ByteBuffer.allocate(settings.length / 2 * 6);
        for (int i = 0; i < settings.length; i += 2) {
            payload.putShort((short) settings[i]).putInt(settings[i + 1]);
        }
        conn.frame(SETTINGS, 0, 0, payload.array());
        return conn;
    }

    /** True when another connection came within {@code millis}. */
    public boolean connectionWaiting(long millis) throws InterruptedException {
        Socket next = accepted.poll(millis, TimeUnit.MILLISECONDS);
        if (next != null) {
            ((ArrayBlockingQueue<Socket>) accepted).add(next);
            return true;
        }
        return false;
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (Socket s; (s = accepted.poll()) != null; ) {
            s.close();
        }
    }

    public record Frame(int type, int flags, int stream, byte[] payload) {
        public int errorCode() {
            return ByteBuffer.wrap(payload, type == GOAWAY ? 4 : 0, 4).getInt();
        }
    }

    /** A request as the server read it: its stream, its fields (pseudo-headers included) and its body. */
    public record Request(int stream, Map<String, String> fields, byte[] body) {
        public String field(String name) {
            return fields.get(name);
        }
    }

    /** One connection from the proxy. */
    public static final class Conn implements AutoCloseable {
        private final Socket socket;
        private final DataInputStream in;
        private final OutputStream out;
        private final HpackEncoder encoder = new HpackEncoder();
        private final HpackDecoder decoder = new HpackDecoder(1 << 20, System::nanoTime);

        Conn(Socket socket) throws IOException {
            this.socket = socket;
            socket.setSoTimeout(10_000);
            socket.setTcpNoDelay(true);
            this.in = new DataInputStream(socket.getInputStream());
            this.out = socket.getOutputStream();
        }

        public synchronized void frame(int type, int flags, int stream, byte[] payload) throws IOException {
            out.write(H2Frames.frame(type, flags, stream, payload));
            out.flush();
        }

        public Frame readFrame() throws IOException {
            byte[] head = new byte[9];
            in.readFully(head);
            int length = (head[0] & 0xff) << 16 | (head[1] & 0xff) << 8 | head[2] & 0xff;
            byte[] payload = new byte[length];
            in.readFully(payload);
            return new Frame(head[3] & 0xff, head[4] & 0xff, ByteBuffer.wrap(head, 5, 4).getInt() & Integer.MAX_VALUE, payload);
        }

        /**
         * Reads until a whole request came (HEADERS, then DATA to END_STREAM), acking SETTINGS and
         * PING and giving DATA's window back on the way.
         */
        public Request request() throws IOException {
            Map<String, String> fields = null;
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            while (true) {
                Frame frame = readFrame();
                switch (frame.type) {
                    case SETTINGS -> {
                        if ((frame.flags & ACK) == 0) {
                            frame(SETTINGS, ACK, 0, new byte[0]);
                        }
                    }
                    case PING -> {
                        if ((frame.flags & ACK) == 0) {
                            frame(PING, ACK, 0, frame.payload);
                        }
                    }
                    case HEADERS -> {
                        fields = decode(frame.payload);
                        if ((frame.flags & END_STREAM) != 0) {
                            return new Request(frame.stream, fields, body.toByteArray());
                        }
                    }
                    case DATA -> {
                        body.write(frame.payload);
                        if (frame.payload.length > 0) {
                            byte[] increment = ByteBuffer.allocate(4).putInt(frame.payload.length).array();
                            frame(WINDOW_UPDATE, 0, 0, increment);
                            frame(WINDOW_UPDATE, 0, frame.stream, increment);
                        }
                        if ((frame.flags & END_STREAM) != 0) {
                            return new Request(frame.stream, fields, body.toByteArray());
                        }
                    }
                    default -> {
                    }
                }
            }
        }

        /**
         * Reads until the proxy acknowledged our SETTINGS: from then on it applies them (before,
         * it may open streams on the defaults, as RFC 9113 lets a client).
         */
        public void awaitSettingsAck() throws IOException {
            while (true) {
                Frame frame = readFrame();
                if (frame.type == SETTINGS) {
                    if ((frame.flags & ACK) != 0) {
                        return;
                    }
                    frame(SETTINGS, ACK, 0, new byte[0]);
                }
            }
        }

        /** Reads frames until one of {@code type} (acking SETTINGS on the way). */
        public Frame until(int type) throws IOException {
            while (true) {
                Frame frame = readFrame();
                if (frame.type == SETTINGS && (frame.flags & ACK) == 0) {
                    frame(SETTINGS, ACK, 0, new byte[0]);
                }
                if (frame.type == type) {
                    return frame;
                }
            }
        }

        private Map<String, String> decode(byte[] block) throws IOException {
            try {
                MetaData meta = decoder.decode(ByteBuffer.wrap(block));
                Map<String, String> fields = new LinkedHashMap<>();
                if (meta instanceof MetaData.Request request) {
                    fields.put(":method", request.getMethod());
                    fields.put(":scheme", request.getHttpURI().getScheme());
                    fields.put(":authority", request.getHttpURI().getAuthority());
                    fields.put(":path", request.getHttpURI().getPathQuery());
                }
                meta.getHttpFields().forEach(f -> fields.merge(f.getName(), f.getValue(), (a, b) -> a + "; " + b));
                return fields;
            } catch (Exception e) {
                throw new IOException("bad header block from the proxy", e);
            }
        }

        /** A response head block: {@code status} and {@code fields} (name, value, ...), HPACK-encoded. */
        public byte[] head(int status, String... fields) {
            HttpFields.Mutable list = HttpFields.build();
            for (int i = 0; i < fields.length; i += 2) {
                list.add(fields[i], fields[i + 1]);
            }
            return encode(new MetaData.Response(status, null, HttpVersion.HTTP_2, list));
        }

        /** A trailer block. */
        public byte[] trailers(String... fields) {
            HttpFields.Mutable list = HttpFields.build();
            for (int i = 0; i < fields.length; i += 2) {
                list.add(fields[i], fields[i + 1]);
            }
            return encode(new MetaData(HttpVersion.HTTP_2, list));
        }

        private byte[] encode(MetaData meta) {
            return H2Frames.block(encoder, meta);
        }

        /** A whole response: its head, then its body as one DATA with END_STREAM (none when empty). */
        public void respond(int stream, int status, String body, String... fields) throws IOException {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            frame(HEADERS, END_HEADERS | (bytes.length == 0 ? END_STREAM : 0), stream, head(status, fields));
            if (bytes.length > 0) {
                frame(DATA, END_STREAM, stream, bytes);
            }
        }

        public void goAway(int lastStream, int code) throws IOException {
            frame(GOAWAY, 0, 0, ByteBuffer.allocate(8).putInt(lastStream).putInt(code).array());
        }

        public void reset(int stream, int code) throws IOException {
            frame(RST_STREAM, 0, stream, ByteBuffer.allocate(4).putInt(code).array());
        }

        /** True when the proxy closed the connection (reads until then). */
        public boolean closedByPeer() {
            try {
                while (true) {
                    readFrame();
                }
            } catch (IOException e) {
                return true;
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
