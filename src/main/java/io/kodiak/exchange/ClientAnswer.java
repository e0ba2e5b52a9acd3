package io.kodiak.exchange;

import io.kodiak.http.ResponseHead;
import io.kodiak.http.Trailers;
import io.kodiak.routing.Route;
import org.glassfish.grizzly.Buffer;

/**
 * The answer side of an exchange, whatever protocol frames it: the upstream's response as the
 * client stream gets it (the route's response rules on its head), the flow control from upstream
 * to client, and what the access log records of it (status, body bytes, time to first byte).
 * Each write returns whether the upstream's reads may go on ({@link Backpressure}).
 */
final class ClientAnswer {
    private final ClientStream client;
    private final Route route;
    private final ForwardedRequest request;
    /** Upstream reads stop while the client's output is full. */
    private final Backpressure toClient;
    private boolean keepAlive;
    /** An interim (1xx) response reached the client: its answer has begun. */
    private boolean interimForwarded;
    private int status;
    private long bytes;
    private long firstByteNanos = -1;
    /** The upstream's trailer fields, once they came (just before the end). */
    private Trailers trailers;

    ClientAnswer(ClientStream client, Route route, ForwardedRequest request, Backpressure toClient) {
        this.client = client;
        this.route = route;
        this.request = request;
        this.toClient = toClient;
    }

    /**
     * RFC 9110 §15.2: a proxy forwards interim responses where the client's protocol has a place
     * for them (HAProxy does, nginx drops them), except 100 Continue, which Kodiak answers itself
     * when the upstream is ready and which would otherwise come twice.
     */
    boolean interim(ResponseHead head) {
        if (head.status() == 100 || !client.sendInterim(head)) {
            return true;
        }
        interimForwarded = true;
        // A client that does not read its 1xx holds the upstream's reads, as for a body.
        return toClient.roomAfterWrite(client);
    }

    /**
     * The final response's head, with {@code piece} of its body (or null); {@code last}: the whole
     * response. {@code keepAllowed}: the exchange would keep the client's connection.
     */
    boolean head(ResponseHead head, Buffer piece, boolean last, boolean keepAllowed) {
        firstByteNanos = System.nanoTime();
        status = head.status();
        count(piece);
        // A response whose head and trailers are all there is: the head, then the end with them.
        boolean endsWithTrailers = last && trailers != null && !trailers.isEmpty();
        keepAlive = client.sendHead(head, route.responseHeaders(), request, keepAllowed, piece, last && !endsWithTrailers);
        if (endsWithTrailers) {
            client.sendEnd(null, trailers);
        }
        return toClient.roomAfterWrite(client);
    }

    /** A piece of the body, framed by the stream; after a 101, the new protocol's bytes as they are. */
    boolean body(Buffer piece, boolean tunnel) {
        count(piece);
        if (tunnel) {
            client.relay(piece);
        } else {
            client.sendBody(piece, false);
        }
        return toClient.roomAfterWrite(client);
    }

    /** The response's trailer fields, for its end. */
    void trailers(Trailers fields) {
        trailers = fields;
    }

    /** The body's end, with its last piece (or null), and the trailers if any came. */
    void end(Buffer lastPiece) {
        count(lastPiece);
        if (trailers == null || trailers.isEmpty()) {
            client.sendBody(lastPiece, true);
        } else {
            client.sendEnd(lastPiece, trailers);
        }
    }

    private void count(Buffer piece) {
        if (piece != null) {
            bytes += piece.remaining();
        }
    }

    /** Kodiak answers in its own name instead: its status is the one logged, and its body's {@code bodyBytes}. */
    void answeredLocally(int localStatus, long bodyBytes) {
        status = localStatus;
        bytes += bodyBytes;
    }

    /** The client left, or the stop cut the exchange: only the status is logged. */
    void answeredLocally(int localStatus) {
        status = localStatus;
    }

    /** Something of the upstream's answer reached the client, a 1xx too. */
    boolean begun() {
        return interimForwarded || firstByteNanos >= 0;
    }

    /** After the head: the client's connection stays open once the body is out. */
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
