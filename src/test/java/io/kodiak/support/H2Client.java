package io.kodiak.support;

import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.http2.hpack.HpackDecoder;
import org.eclipse.jetty.http2.hpack.HpackEncoder;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A raw HTTP/2 client for tests, over plain TCP with prior knowledge: frames written and read
 * byte by byte (its own framing, not Kodiak's), HPACK by Jetty's encoder and decoder. It
 * acknowledges SETTINGS and, unless told otherwise, gives back window for every DATA it reads, so
 * responses of any size flow; tests that probe flow control turn that off.
 */
public final class H2Client implements AutoCloseable {
    public static final int DATA = 0, HEADERS = 1, PRIORITY = 2, RST_STREAM = 3, SETTINGS = 4, PING = 6, GOAWAY = 7,
            WINDOW_UPDATE = 8, CONTINUATION = 9;
    public static final int END_STREAM = 1, END_HEADERS = 4, ACK = 1;

    /** One frame as read. */
    public record Frame(int type, int flags, int stream, byte[] payload) {
        public int errorCode() {
            int at = type == GOAWAY ? 4 : 0;
            return ByteBuffer.wrap(payload, at, 4).getInt();
        }

        @Override
        public String toString() {
            return "frame type " + type + " flags " + flags + " stream " + stream + " length " + payload.length;
        }
    }

    /** A response as a stream delivered it. {@code reset}: the RST_STREAM code, or -1. */
    public record Response(int status, Map<String, String> headers, byte[] body, int reset) {
        public String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final HpackEncoder encoder = new HpackEncoder();
    private final HpackDecoder decoder = new HpackDecoder(1 << 20, System::nanoTime);
    private final Map<Integer, Partial> partials = new HashMap<>();
    private final List<Frame> seen = new ArrayList<>();
    private int nextStream = 1;
    private boolean autoWindow = true;
    /** The server's SETTINGS as first received. */
    public final Map<Integer, Integer> serverSettings = new HashMap<>();
    public Frame goAway;

    private static final class Partial {
        int status;
        final Map<String, String> headers = new HashMap<>();
        final ByteArrayOutputStream body = new ByteArrayOutputStream();
        boolean done;
        int reset = -1;
    }

    private H2Client(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new DataInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
        this.encoder.setMaxHeaderListSize(1 << 20);
    }

    /** Connects, sends the preface and empty SETTINGS (or {@code settings}: id, value, ...), and reads the server's SETTINGS. */
    public static H2Client connect(int port, int... settings) throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        socket.setSoTimeout(10_000);
        socket.setTcpNoDelay(true);
        H2Client client = new H2Client(socket);
        client.out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        ByteBuffer payload = ByteBuffer.allocate(settings.length / 2 * 6);
        for (int i = 0; i < settings.length; i += 2) {
            payload.putShort((short) settings[i]).putInt(settings[i + 1]);
        }
        client.frame(SETTINGS, 0, 0, payload.array());
        Frame first = client.readFrame();
        if (first.type != SETTINGS) {
            throw new IOException("server's first frame: " + first);
        }
        for (int i = 0; i + 6 <= first.payload.length; i += 6) {
            ByteBuffer b = ByteBuffer.wrap(first.payload, i, 6);
            client.serverSettings.put((int) b.getShort() & 0xffff, b.getInt());
        }
        return client;
    }

    public void autoWindow(boolean on) {
        this.autoWindow = on;
    }

    public void frame(int type, int flags, int stream, byte[] payload) throws IOException {
        out.write(H2Frames.frame(type, flags, stream, payload));
        out.flush();
    }

    /** A header block for a request: pseudo-headers first, then {@code fields} (name, value, ...) as given. */
    public byte[] requestBlock(String method, String path, String authority, String... fields) {
        HttpFields.Mutable list = HttpFields.build();
        for (int i = 0; i < fields.length; i += 2) {
            list.add(new HttpField(fields[i], fields[i + 1]));
        }
        MetaData.Request request = new MetaData.Request(method, HttpURI.build().scheme("http").host(authority == null
                ? null : authority.split(":")[0]).port(authority != null && authority.contains(":")
                ? Integer.parseInt(authority.split(":")[1]) : -1).pathQuery(path), HttpVersion.HTTP_2, list);
        return H2Frames.block(encoder, request);
    }

    /** A literal header block written by hand (no HPACK table): for names and values the encoder would refuse. */
    public static byte[] literalBlock(String... nameValues) {
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        for (int i = 0; i < nameValues.length; i += 2) {
            block.write(0x00);
            literal(block, nameValues[i]);
            literal(block, nameValues[i + 1]);
        }
        return block.toByteArray();
    }

    private static void literal(ByteArrayOutputStream out, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.ISO_8859_1);
        if (bytes.length < 127) {
            out.write(bytes.length);
        } else {
            out.write(127);
            int rest = bytes.length - 127;
            while (rest >= 128) {
                out.write(rest % 128 + 128);
                rest /= 128;
            }
            out.write(rest);
        }
        out.write(bytes, 0, bytes.length);
    }

    /** Opens the next stream with a request; {@code body} null: none (END_STREAM on the HEADERS). Returns its id. */
    public int request(String method, String path, byte[] body, String... fields) throws IOException {
        int stream = nextStream;
        nextStream += 2;
        frame(HEADERS, END_HEADERS | (body == null ? END_STREAM : 0), stream, requestBlock(method, path, "proxy.test", fields));
        if (body != null) {
            sendData(stream, body, true);
        }
        return stream;
    }

    /** Opens the next stream with a header block as given. */
    public int headers(byte[] block, boolean endStream) throws IOException {
        int stream = nextStream;
        nextStream += 2;
        frame(HEADERS, END_HEADERS | (endStream ? END_STREAM : 0), stream, block);
        return stream;
    }

    public int nextStreamId() {
        return nextStream;
    }

    public void skipStreamId() {
        nextStream += 2;
    }

    /** DATA in frames of at most 16 KiB. */
    public void sendData(int stream, byte[] body, boolean end) throws IOException {
        int at = 0;
        do {
            int n = Math.min(16384, body.length - at);
            byte[] part = java.util.Arrays.copyOfRange(body, at, at + n);
            at += n;
            frame(DATA, end && at == body.length ? END_STREAM : 0, stream, part);
        } while (at < body.length);
    }

    /** Bytes from the server are waiting to be read. */
    public boolean available() throws IOException {
        return in.available() > 0;
    }

    public Frame readFrame() throws IOException {
        byte[] head = new byte[9];
        in.readFully(head);
        int length = (head[0] & 0xff) << 16 | (head[1] & 0xff) << 8 | head[2] & 0xff;
        int stream = ByteBuffer.wrap(head, 5, 4).getInt() & Integer.MAX_VALUE;
        byte[] payload = new byte[length];
        in.readFully(payload);
        Frame frame = new Frame(head[3] & 0xff, head[4] & 0xff, stream, payload);
        seen.add(frame);
        return frame;
    }

    /** Reads until {@code stream} ends (END_STREAM or RST_STREAM), handling what else comes. */
    public Response response(int stream) throws IOException {
        while (true) {
            Partial partial = partials.get(stream);
            if (partial != null && partial.done) {
                partials.remove(stream);
                return new Response(partial.status, partial.headers, partial.body.toByteArray(), partial.reset);
            }
            if (goAway != null && stream > ByteBuffer.wrap(goAway.payload, 0, 4).getInt()) {
                throw new EOFException("GOAWAY before stream " + stream + " ended: code " + goAway.errorCode());
            }
            handle(readFrame());
        }
    }

    /** Reads frames until one of {@code type} comes (handling the rest); EOF when the server closes first. */
    public Frame until(int type) throws IOException {
        while (true) {
            Frame frame = readFrame();
            handle(frame);
            if (frame.type == type) {
                return frame;
            }
        }
    }

    /** True when the server closed the connection (after whatever it still sent). */
    public boolean closedByServer() {
        try {
            while (true) {
                handle(readFrame());
            }
        } catch (IOException e) {
            return true;
        }
    }

    /** An automatic reply (an ack, a window): lost without harm when the server has already closed. */
    private void reply(int type, int flags, int stream, byte[] payload) {
        try {
            frame(type, flags, stream, payload);
        } catch (IOException closed) {
            // the server is done with the connection; what it sent is still read
        }
    }

    private void handle(Frame frame) throws IOException {
        switch (frame.type) {
            case SETTINGS -> {
                if ((frame.flags & ACK) == 0) {
                    reply(SETTINGS, ACK, 0, new byte[0]);
                }
            }
            case PING -> {
                if ((frame.flags & ACK) == 0) {
                    reply(PING, ACK, 0, frame.payload);
                }
            }
            case GOAWAY -> goAway = frame;
            case HEADERS, CONTINUATION -> {
                Partial partial = partials.computeIfAbsent(frame.stream, s -> new Partial());
                try {
                    MetaData meta = decoder.decode(ByteBuffer.wrap(frame.payload));
                    if (meta instanceof MetaData.Response response && response.getStatus() >= 200) {
                        partial.status = response.getStatus();
                    }
                    for (HttpField field : meta.getHttpFields()) {
                        partial.headers.merge(field.getName(), field.getValue(), (a, b) -> a + ", " + b);
                    }
                } catch (Exception e) {
                    throw new IOException("bad header block from the server", e);
                }
                if ((frame.flags & END_STREAM) != 0) {
                    partial.done = true;
                }
            }
            case DATA -> {
                Partial partial = partials.computeIfAbsent(frame.stream, s -> new Partial());
                partial.body.write(frame.payload);
                if (autoWindow && frame.payload.length > 0) {
                    byte[] increment = ByteBuffer.allocate(4).putInt(frame.payload.length).array();
                    reply(WINDOW_UPDATE, 0, 0, increment);
                    reply(WINDOW_UPDATE, 0, frame.stream, increment);
                }
                if ((frame.flags & END_STREAM) != 0) {
                    partial.done = true;
                }
            }
            case RST_STREAM -> {
                Partial partial = partials.computeIfAbsent(frame.stream, s -> new Partial());
                partial.reset = frame.errorCode();
                partial.done = true;
            }
            default -> {
            }
        }
    }

    /** Every frame read so far. */
    public List<Frame> seen() {
        return seen;
    }

    /** Drops the connection with a TCP reset (SO_LINGER 0), as a client that vanishes does. */
    public void abort() {
        try {
            socket.setSoLinger(true, 0);
            socket.close();
        } catch (IOException ignored) {
            // gone either way
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
