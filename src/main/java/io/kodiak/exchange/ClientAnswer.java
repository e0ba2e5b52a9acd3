package io.kodiak.exchange;

import io.kodiak.http.ChunkFramer;
import io.kodiak.http.ResponseHead;
import io.kodiak.routing.Route;
import io.kodiak.transport.OneWrite;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.MemoryManager;

/**
 * What the client receives of the upstream's response: its head as rewritten for the client, its
 * body framed as the client needs it ({@link ClientFraming}), whether the client's connection
 * stays open after it, and what the access log says of it (status, bytes, time to first byte).
 */
final class ClientAnswer {
    private final ForwardedRequest request;
    private final Route route;
    private final MemoryManager memory;
    private ClientFraming framing;
    private boolean keepAlive;
    private int status;
    private long bytes;
    private long firstByteNanos = -1;

    ClientAnswer(ForwardedRequest request, Route route, MemoryManager memory) {
        this.request = request;
        this.route = route;
        this.memory = memory;
    }

    /**
     * The client's head for the final response {@code head}. {@code keepAllowed}: the exchange
     * would keep the client's connection; a body delimited by closing it overrules.
     */
    Buffer head(ResponseHead head, boolean keepAllowed) {
        firstByteNanos = System.nanoTime();
        status = head.status();
        ClientResponseHead.Persistence persistence;
        if (status == 101) {
            framing = ClientFraming.AS_RECEIVED;
            persistence = ClientResponseHead.Persistence.UPGRADE;
        } else {
            boolean body = head.hasBody(request.isHead());
            framing = !body || !head.isCloseDelimited() && !head.isChunked() ? ClientFraming.AS_RECEIVED
                    : request.http11() ? ClientFraming.CHUNKED : ClientFraming.CLOSE;
            keepAlive = framing != ClientFraming.CLOSE && keepAllowed;
            persistence = !keepAlive ? ClientResponseHead.Persistence.CLOSE
                    : request.http11() ? ClientResponseHead.Persistence.NOTHING : ClientResponseHead.Persistence.KEEP_ALIVE;
        }
        return ClientResponseHead.build(head, framing, persistence, route.responseHeaders(), request, memory);
    }

    /** One piece of the response body, counted and framed for the client. */
    Buffer piece(Buffer piece) {
        bytes += piece.remaining();
        return framing == ClientFraming.CHUNKED ? ChunkFramer.frame(memory, piece, false) : piece;
    }

    /** {@code out} (what is left to write, or null) with the end of the body the framing needs: the last chunk. */
    Buffer withEnd(Buffer out) {
        if (framing != ClientFraming.CHUNKED) {
            return out;
        }
        Buffer end = ChunkFramer.frame(memory, null, true);
        return out == null ? end : OneWrite.of(memory, out, end);
    }

    /** Kodiak answers in its own name instead ({@link LocalAnswer}): its status is the one logged. */
    void answeredLocally(int localStatus) {
        status = localStatus;
    }

    boolean keepAlive() {
        return keepAlive;
    }

    int status() {
        return status;
    }

    long bytes() {
        return bytes;
    }

    long firstByteNanos() {
        return firstByteNanos;
    }
}
