package io.kodiak.exchange;

import io.kodiak.transport.Pieces;
import org.glassfish.grizzly.Buffer;

/**
 * The request side of an exchange, whatever protocol carries it: the prepared request and its
 * body on their way to the attempt's upstream stream (held while none is bound yet), 100 Continue,
 * the flow control from client to upstream and the upstream's deadlines while the request goes
 * out. Each write returns whether the client's reads may go on ({@link Backpressure}).
 */
final class RequestRelay {
    private final ClientStream client;
    private final ForwardedRequest request;
    private final PreparedRequest prepared;
    private final RequestBody body;
    /** Client reads stop while the upstream's output is full. */
    private final Backpressure toUpstream;
    private final long stallMillis;
    private final long responseMillis;
    private boolean continueSent;
    private long sentNanos = -1;

    RequestRelay(ClientStream client, ForwardedRequest request, PreparedRequest prepared, RequestBody body,
                 long stallMillis, long responseMillis, Backpressure toUpstream) {
        this.client = client;
        this.request = request;
        this.prepared = prepared;
        this.body = body;
        this.stallMillis = stallMillis;
        this.responseMillis = responseMillis;
        this.toUpstream = toUpstream;
    }

    /**
     * A stream is bound: 100 Continue when the client waits for it (first: the upstream's answer
     * must not overtake it), then the head with the body held so far, in one write.
     */
    void sendOn(UpstreamStream stream) {
        if (request.expectContinue() && !continueSent && !body.complete()) {
            continueSent = true;
            client.sendContinue();
        }
        stream.sendRequest(prepared, body.takeHeld(), body.complete());
        if (body.complete()) {
            sent(stream);
        } else {
            stream.armDeadline(stallMillis);
        }
        toUpstream.resumeWhenRoom(stream);
    }

    /** No stream yet: {@code piece} is held; false when so much is held that the client's reads stop. */
    boolean hold(Buffer piece) {
        if (body.hold(piece)) {
            toUpstream.pauseUntilReceiver();
            return false;
        }
        return true;
    }

    /** A piece of the body to {@code stream}; {@code last}: the request is complete with it. */
    boolean send(UpstreamStream stream, Buffer piece, boolean last, boolean responseStarted) {
        stream.sendBody(piece, last);
        if (last) {
            sentNanos = System.nanoTime();
            if (!responseStarted) {
                stream.armDeadline(responseMillis);
            }
            return true;
        }
        stream.armDeadline(stallMillis);
        return toUpstream.roomAfterWrite(stream);
    }

    /** After a 101: the client's bytes for the upstream. */
    boolean relay(UpstreamStream stream, Buffer bytes) {
        body.count(bytes);
        stream.relay(bytes);
        stream.armDeadline(stallMillis);
        return toUpstream.roomAfterWrite(stream);
    }

    private void sent(UpstreamStream stream) {
        sentNanos = System.nanoTime();
        stream.armDeadline(responseMillis);
    }

    /** Client reads are stopped for the upstream's sake (a deadline then means the upstream does not read). */
    boolean paused() {
        return toUpstream.paused();
    }

    /** The client may have held its body back for a 100 Continue it never got: its next bytes would be read as this body. */
    boolean bodyMayNeverCome() {
        return !body.complete() && request.expectContinue() && !continueSent;
    }

    /** The exchange is over: the prepared request's memory, and a body still held (no stream ever took it), may go back. */
    void release() {
        prepared.release();
        Pieces.drop(body.takeHeld());
    }

    /** When the request's last byte went upstream (-1: it did not). */
    long sentNanos() {
        return sentNanos;
    }
}
