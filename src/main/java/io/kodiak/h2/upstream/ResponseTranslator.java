package io.kodiak.h2.upstream;

import io.kodiak.h2.ErrorCode;
import io.kodiak.h2.Http2Exception;
import io.kodiak.http.HeadReader;
import io.kodiak.http.HeadScanner;
import io.kodiak.http.HttpViolationException;
import io.kodiak.http.ResponseHead;
import io.kodiak.http.Trailers;
import io.kodiak.http.Violation;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.http.MetaData;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.MemoryManager;

import java.util.Arrays;

/**
 * An h2 upstream's response head as the HTTP/1.1 head the rest of Kodiak reads (the way the
 * client side reads HTTP/2 requests): a status line with the status's usual reason phrase, the
 * fields as they came, then parsed by Kodiak's own parser, so every check on an HTTP/1.1 upstream's
 * head applies. The body's framing is HTTP/2's (END_STREAM); the head says how an HTTP/1.1 client
 * gets it: its content-length when it has one, else chunked, or a length of 0 when the head ended
 * the stream.
 *
 * <p>What RFC 9113 §8.2.2 and §8.3.2 call malformed is refused as a stream error: a pseudo-header
 * other than :status, a missing or bad :status, connection-specific fields. One connection reads
 * one head at a time, so one translator serves all its streams.
 */
final class ResponseTranslator {
    /** Response heads and trailers are bounded as an HTTP/1.1 upstream's are. */
    static final int MAX_HEAD = 64 * 1024;

    private final HeadReader reader = new HeadReader(HeadScanner.Start.STATUS_LINE, MAX_HEAD * 2 + 1024,
            Violation.STATUS_LINE_SYNTAX);
    private final ResponseHead head = new ResponseHead();
    private final MemoryManager memory;
    private byte[] out = new byte[512];
    private int length;

    ResponseTranslator(MemoryManager memory) {
        this.memory = memory;
    }

    /**
     * The head, valid until the next call. {@code endStream}: the HEADERS ended the stream; {@code
     * requestWasHead}: the response to a HEAD has no body whatever it says.
     */
    ResponseHead translate(int streamId, MetaData.Response response, boolean endStream, boolean requestWasHead)
            throws Http2Exception {
        int status = response.getStatus();
        if (status < 100 || status > 999) {
            throw malformed(streamId, "a missing or bad :status");
        }
        if (status == 101) {
            throw malformed(streamId, "101 Switching Protocols, which HTTP/2 has not");
        }
        length = 0;
        append(statusLine(status));
        boolean hasLength = false;
        for (HttpField field : response.getHttpFields()) {
            String name = field.getName();
            String value = field.getValue() == null ? "" : field.getValue();
            if (name.startsWith(":")) {
                throw malformed(streamId, "the pseudo-header " + name + " in a response");
            }
            switch (name) {
                case "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te" ->
                        throw malformed(streamId, "the connection-specific field " + name);
                case "content-length" -> hasLength = true;
                default -> {
                }
            }
            append(name).append(": ").append(value).append("\r\n");
        }
        if (status >= 200 && !hasLength && !requestWasHead && status != 204 && status != 304) {
            append(endStream ? "content-length: 0\r\n" : "transfer-encoding: chunked\r\n");
        }
        append("\r\n");
        reader.clear();
        head.forgetBytes();
        try {
            // Read from the translator's own array: the head is valid until the next call.
            if (!reader.read(Buffers.wrap(memory, out, 0, length))) {
                throw new HttpViolationException(Violation.STATUS_LINE_SYNTAX);
            }
            head.parse(reader);
        } catch (HttpViolationException e) {
            throw malformed(streamId, e.violation().text());
        }
        return head;
    }

    /** Status lines by status, made once each: "HTTP/1.1 200 OK\r\n". */
    private static final String[] STATUS_LINES = new String[1000];

    private static String statusLine(int status) {
        String line = STATUS_LINES[status];
        if (line == null) {
            String reason = HttpStatus.getMessage(status);
            String code = Integer.toString(status);
            line = "HTTP/1.1 " + code + " " + (reason == null || reason.equals(code) ? "" : reason) + "\r\n";
            // A benign race: two threads make the same string.
            STATUS_LINES[status] = line;
        }
        return line;
    }

    /** A trailer block's fields, what a trailer may not carry left out; a pseudo-header is malformed. */
    static Trailers trailers(int streamId, MetaData fields) throws Http2Exception {
        Trailers trailers = new Trailers();
        for (HttpField field : fields.getHttpFields()) {
            if (field.getName().startsWith(":")) {
                throw malformed(streamId, "the pseudo-header " + field.getName() + " in trailers");
            }
            trailers.add(field.getName(), field.getValue() == null ? "" : field.getValue());
        }
        return trailers;
    }

    /** RFC 9113 §6.5.2: the size of a field list, each field's name and value plus 32. */
    static long listSize(MetaData fields) {
        long size = 0;
        for (HttpField field : fields.getHttpFields()) {
            size += field.getName().length() + (field.getValue() == null ? 0 : field.getValue().length()) + 32;
        }
        return size;
    }

    private static Http2Exception malformed(int streamId, String what) {
        return Http2Exception.stream(streamId, ErrorCode.PROTOCOL_ERROR, "malformed response: " + what);
    }

    private ResponseTranslator append(String text) {
        int n = text.length();
        if (length + n > out.length) {
            out = Arrays.copyOf(out, Math.max(out.length * 2, length + n));
        }
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            // HPACK's decoder refused what no field may carry; a char past Latin-1 cannot be one.
            out[length++] = (byte) (c > 0xff ? '?' : c);
        }
        return this;
    }
}
