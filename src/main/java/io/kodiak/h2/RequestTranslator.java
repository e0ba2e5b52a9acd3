package io.kodiak.h2;

import io.kodiak.http.HeadReader;
import io.kodiak.http.HeadScanner;
import io.kodiak.http.HttpViolationException;
import io.kodiak.http.RequestHead;
import io.kodiak.http.Violation;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.MetaData;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.MemoryManager;

import java.util.Arrays;

/**
 * An HTTP/2 request as the HTTP/1.1 head the rest of Kodiak reads (RFC 9113 §8.3.1): the request
 * line from :method and :path, Host from :authority, the fields as they came but for cookies
 * joined into one (§8.2.3), and Transfer-Encoding: chunked for a body of unknown length, which the
 * HTTP/1.1 upstream side frames. The head is then parsed by Kodiak's own HTTP/1.1 parser, so every
 * check, route, rule and limit applies as to an HTTP/1.1 request.
 *
 * <p>What HTTP/2 forbids is refused first, as a malformed request (a stream error,
 * PROTOCOL_ERROR): connection-specific fields, TE other than "trailers", a Host that disagrees
 * with :authority, bytes a request line or field may not carry, a content-length with END_STREAM
 * on the head. HPACK's decoder has refused uppercase and illegal names and values already.
 */
final class RequestTranslator {
    private final HeadReader reader;
    private final RequestHead head = new RequestHead();
    private final MemoryManager memory;
    private byte[] out = new byte[512];
    private int length;

    RequestTranslator(int maxHeaderSize, MemoryManager memory) {
        // The head written here is at most the decoded fields plus a line's punctuation each.
        this.reader = new HeadReader(HeadScanner.Start.REQUEST_LINE, maxHeaderSize * 2 + 1024,
                Violation.REQUEST_LINE_TOO_LONG);
        this.memory = memory;
    }

    /**
     * The request's head; its bytes are valid until {@link #forget()}. {@code endStream}: the
     * HEADERS frame ended the stream (no body). Throws an {@link Http2Exception} for what HTTP/2
     * calls malformed, and an {@link HttpViolationException} for what Kodiak's HTTP/1.1 rules refuse.
     */
    RequestHead translate(int streamId, MetaData.Request request, boolean endStream) throws Http2Exception {
        length = 0;
        String method = request.getMethod();
        String path = request.getHttpURI() == null ? null : request.getHttpURI().getPathQuery();
        if (method == null || path == null || path.isEmpty() || !visible(method) || !visible(path)
                || !(path.charAt(0) == '/' || path.equals("*") && method.equals("OPTIONS"))) {
            throw malformed(streamId, "a bad :method or :path");
        }
        String authority = request.getHttpURI().getAuthority();
        append(method).append(" ").append(path).append(" HTTP/1.1\r\n");
        if (authority != null && !authority.isEmpty()) {
            if (!visible(authority)) {
                throw malformed(streamId, "a bad :authority");
            }
            append("host: ").append(authority).append("\r\n");
        }
        String cookies = null;
        boolean hasLength = false;
        for (HttpField field : request.getHttpFields()) {
            String name = field.getName();
            String value = field.getValue() == null ? "" : field.getValue();
            if (!legalValue(value)) {
                throw malformed(streamId, "a field value with a control byte");
            }
            switch (name) {
                case "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade" ->
                        throw malformed(streamId, "the connection-specific field " + name);
                case "te" -> {
                    if (!value.equalsIgnoreCase("trailers")) {
                        throw malformed(streamId, "TE other than trailers");
                    }
                    append(name).append(": ").append(value).append("\r\n");
                }
                case "host" -> {
                    if (authority != null && !authority.isEmpty()) {
                        if (!authority.equalsIgnoreCase(value)) {
                            throw malformed(streamId, "a Host that is not its :authority");
                        }
                    } else {
                        append(name).append(": ").append(value).append("\r\n");
                    }
                }
                case "cookie" -> cookies = cookies == null ? value : cookies + "; " + value;
                default -> {
                    if (name.equals("content-length")) {
                        hasLength = true;
                        if (endStream && !value.equals("0")) {
                            throw malformed(streamId, "a content-length with no DATA to come");
                        }
                    }
                    append(name).append(": ").append(value).append("\r\n");
                }
            }
        }
        if (cookies != null) {
            append("cookie: ").append(cookies).append("\r\n");
        }
        if (!endStream && !hasLength) {
            append("transfer-encoding: chunked\r\n");
        }
        append("\r\n");
        reader.clear();
        if (!reader.read(Buffers.wrap(memory, Arrays.copyOf(out, length)))) {
            throw new HttpViolationException(Violation.REQUEST_LINE_TOO_LONG);
        }
        head.parse(reader);
        return head;
    }

    /** RFC 9113 §6.5.2: the size of a field list, each field's name and value plus 32. */
    static long listSize(MetaData.Request request) {
        long size = 0;
        for (HttpField field : request.getHttpFields()) {
            size += field.getName().length() + (field.getValue() == null ? 0 : field.getValue().length()) + 32;
        }
        return size;
    }

    /** Lets go of the last head's bytes once everything that needs them has copied what it keeps. */
    void forget() {
        reader.clear();
        head.forgetBytes();
    }

    private static Http2Exception malformed(int streamId, String what) {
        return Http2Exception.stream(streamId, ErrorCode.PROTOCOL_ERROR, "malformed request: " + what);
    }

    /** Printable ASCII and nothing else: what a request line may carry. */
    private static boolean visible(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c <= 0x20 || c >= 0x7f) {
                return false;
            }
        }
        return true;
    }

    /** RFC 9113 §8.2.1: no NUL, CR or LF anywhere, no whitespace at either end. */
    private static boolean legalValue(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == 0 || c == '\r' || c == '\n' || c > 0xff) {
                return false;
            }
        }
        return value.isEmpty() || value.charAt(0) != ' ' && value.charAt(0) != '\t'
                && value.charAt(value.length() - 1) != ' ' && value.charAt(value.length() - 1) != '\t';
    }

    private RequestTranslator append(String text) {
        int n = text.length();
        if (length + n > out.length) {
            out = Arrays.copyOf(out, Math.max(out.length * 2, length + n));
        }
        for (int i = 0; i < n; i++) {
            out[length++] = (byte) text.charAt(i);
        }
        return this;
    }
}
