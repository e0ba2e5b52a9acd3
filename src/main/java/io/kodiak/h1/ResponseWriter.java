package io.kodiak.h1;

import io.kodiak.exchange.ProxyError;
import io.kodiak.http.ChunkFramer;
import io.kodiak.http.ResponseHead;
import io.kodiak.http.Trailers;
import io.kodiak.routing.HeaderRules;
import io.kodiak.routing.HeaderVariable;
import io.kodiak.transport.OneWrite;
import io.kodiak.transport.Pieces;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.MemoryManager;

import java.nio.charset.StandardCharsets;

/**
 * A client connection's responses as HTTP/1.1 bytes, one at a time: the head rewritten for the
 * client, the body framed as this client needs it ({@link ClientFraming}: a body without a length
 * goes chunked to an HTTP/1.1 client, delimited by the close to an HTTP/1.0 one), the Connection
 * field, 100 Continue and Kodiak's own answers. One per connection, set for each request.
 */
public final class ResponseWriter {
    private static final byte[] CONTINUE_100 = "HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    private final MemoryManager memory;
    private boolean http11;
    private boolean headRequest;
    private ClientFraming framing = ClientFraming.AS_RECEIVED;
    private boolean keepAlive;
    /** The request said TE: trailers. */
    private boolean acceptsTrailers;

    public ResponseWriter(MemoryManager memory) {
        this.memory = memory;
    }

    /** The next response answers a request of this version and method. */
    public void start(boolean requestHttp11, boolean requestIsHead, boolean requestAcceptsTrailers) {
        http11 = requestHttp11;
        headRequest = requestIsHead;
        acceptsTrailers = requestAcceptsTrailers;
        framing = ClientFraming.AS_RECEIVED;
    }

    public Buffer continue100() {
        return Buffers.wrap(memory, CONTINUE_100);
    }

    /** An interim response (102, 103) as the client gets it; null for an HTTP/1.0 client, which has no place for one. */
    public Buffer interim(ResponseHead head) {
        return http11 ? ClientResponseHead.interim(head, memory) : null;
    }

    /**
     * The final response's head (and {@code firstPiece}, and the body's end when {@code last}) in
     * one buffer. Sets whether the connection is kept after it: {@code keepAllowed}, unless the
     * body is delimited by the close. Returns the bytes; {@link #keepsAlive()} tells.
     */
    public Buffer head(ResponseHead head, HeaderRules rules, HeaderVariable.Values values, boolean keepAllowed,
                       Buffer firstPiece, boolean last) {
        ClientResponseHead.Persistence persistence;
        if (head.status() == 101) {
            framing = ClientFraming.AS_RECEIVED;
            persistence = ClientResponseHead.Persistence.UPGRADE;
            keepAlive = false;
        } else {
            boolean body = head.hasBody(headRequest);
            framing = !body || !head.isCloseDelimited() && !head.isChunked() ? ClientFraming.AS_RECEIVED
                    : http11 ? ClientFraming.CHUNKED : ClientFraming.CLOSE;
            keepAlive = framing != ClientFraming.CLOSE && keepAllowed;
            persistence = !keepAlive ? ClientResponseHead.Persistence.CLOSE
                    : http11 ? ClientResponseHead.Persistence.NOTHING : ClientResponseHead.Persistence.KEEP_ALIVE;
        }
        // The body's framing is known from here on, and the head is written with its first piece.
        return ClientResponseHead.build(head, framing, persistence, rules, values, memory, body(firstPiece, last));
    }

    /** Whether the connection stays open after the response whose head was last written. */
    public boolean keepsAlive() {
        return keepAlive;
    }

    /** A piece of the body framed for the client, with the body's end when {@code last}; null: nothing to write. */
    public Buffer body(Buffer piece, boolean last) {
        if (framing == ClientFraming.CHUNKED) {
            return ChunkFramer.frame(memory, piece, last);
        }
        if (piece == null || !piece.hasRemaining()) {
            Pieces.drop(piece);
            return null;
        }
        return piece;
    }

    /**
     * The body's end with its last piece and the upstream's trailers: a chunked trailer section
     * when the client said TE: trailers (RFC 9112 §7.1.2), else as {@link #body} without them.
     */
    public Buffer end(Buffer lastPiece, Trailers trailers) {
        if (framing != ClientFraming.CHUNKED || !acceptsTrailers || trailers.isEmpty()) {
            return body(lastPiece, true);
        }
        Buffer data = ChunkFramer.frame(memory, lastPiece, false);
        Buffer end = ChunkFramer.lastChunk(memory, trailers.fieldLines());
        return data == null ? end : OneWrite.of(memory, data, end);
    }

    /** Kodiak's answer for {@code error}, to the request being answered. */
    public Buffer local(ProxyError error, String detail, long requestNumber, boolean keep) {
        return LocalAnswer.of(error, detail, headRequest, !keep ? LocalAnswer.Persistence.CLOSE
                : http11 ? LocalAnswer.Persistence.NOTHING : LocalAnswer.Persistence.KEEP_ALIVE, requestNumber, 0, memory);
    }
}
