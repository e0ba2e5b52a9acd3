package io.kodiak.h1;

import io.kodiak.exchange.ProxyError;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.MemoryManager;

import java.nio.charset.StandardCharsets;

/** Kodiak's own short text/plain answers: errors, never a stack trace. */
public final class LocalAnswer {
    /** What the answer's Connection field says: close, keep-alive (to an HTTP/1.0 client kept open), or nothing. */
    public enum Persistence { CLOSE, KEEP_ALIVE, NOTHING }

    private LocalAnswer() {
    }

    /**
     * The text/plain body of the answer for {@code error}, whatever protocol carries it: the status
     * and what it means, what exactly was wrong when known, and for a 5xx the request id of {@code
     * requestNumber} (0: none).
     */
    public static byte[] body(ProxyError error, String detail, long requestNumber) {
        return error.answerBody(detail, requestNumber);
    }

    /**
     * The whole response for {@code error}, with what exactly was wrong after the reason when
     * known. The answer to HEAD has no body. A 5xx answer names the request id of {@code
     * requestNumber} (0: none), so that a user's report can be found in the logs;
     * {@code retryAfterSeconds} > 0 adds Retry-After (a 429's).
     */
    public static Buffer of(ProxyError error, String detail, boolean headRequest, Persistence persistence,
                            long requestNumber, long retryAfterSeconds, MemoryManager memory) {
        byte[] bodyBytes = body(error, detail, requestNumber);
        StringBuilder head = new StringBuilder(192)
                .append("HTTP/1.1 ").append(error.status).append(' ').append(error.reason).append("\r\n")
                .append("Content-Type: text/plain; charset=utf-8\r\n")
                .append("Content-Length: ").append(bodyBytes.length).append("\r\n");
        if (retryAfterSeconds > 0) {
            head.append("Retry-After: ").append(retryAfterSeconds).append("\r\n");
        }
        if (persistence == Persistence.CLOSE) {
            head.append("Connection: close\r\n");
        } else if (persistence == Persistence.KEEP_ALIVE) {
            head.append("Connection: keep-alive\r\n");
        }
        head.append("\r\n");
        byte[] headBytes = head.toString().getBytes(StandardCharsets.US_ASCII);
        byte[] all = new byte[headBytes.length + (headRequest ? 0 : bodyBytes.length)];
        System.arraycopy(headBytes, 0, all, 0, headBytes.length);
        if (!headRequest) {
            System.arraycopy(bodyBytes, 0, all, headBytes.length, bodyBytes.length);
        }
        return Buffers.wrap(memory, all);
    }
}
