package io.kodiak.h2;

import io.kodiak.exchange.Exchange;
import io.kodiak.transport.Pieces;
import org.glassfish.grizzly.Buffer;

/**
 * DATA from the client, and the flow control that bounds it (RFC 9113 §6.9): the connection's
 * window, given back as DATA arrives (one stopped stream never stalls its neighbours), and each
 * stream's, given back as its exchange takes the body ({@link Http2Stream#taken}). A DATA frame's
 * payload is a slice of the read buffer, handed to the exchange as it is, or dropped.
 */
final class Inbound {
    /** The connection-level window we keep open for the client. */
    static final int CONNECTION_WINDOW = 1 << 20;

    private final StreamTable streams;
    private final Outbound out;
    private final FloodGuard flood;
    private final Http2Peer peer;
    private int connectionWindow = CONNECTION_WINDOW;
    private int consumed;

    Inbound(StreamTable streams, Outbound out, FloodGuard flood, Http2Peer peer) {
        this.streams = streams;
        this.out = out;
        this.flood = flood;
        this.peer = peer;
    }

    /** {@code payload} is this call's to hand on or drop, whatever happens. */
    void data(int flags, int streamId, Buffer payload) throws Http2Exception {
        int length = payload.remaining();
        try {
            if (streamId == 0) {
                throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "DATA on stream 0");
            }
            if (length > connectionWindow) {
                throw Http2Exception.connection(ErrorCode.FLOW_CONTROL_ERROR, "DATA beyond the connection's window");
            }
        } catch (Http2Exception e) {
            Pieces.drop(payload);
            throw e;
        }
        connectionWindow -= length;
        consumed += length;
        if (consumed >= CONNECTION_WINDOW / 2) {
            connectionWindow += consumed;
            out.write(out.frames().windowUpdate(0, consumed));
            consumed = 0;
        }
        Http2Stream stream = streams.get(streamId);
        if (stream == null || !stream.state().receives()) {
            Pieces.drop(payload);
            if (streamId > streams.lastStreamId()) {
                throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "DATA on an idle stream");
            }
            // RFC 9113 §5.1: DATA on a stream the client ended, or that was reset, is STREAM_CLOSED.
            // A few may be in flight when Kodiak answers early, so these count as frames without
            // progress, not as resets.
            if (stream != null) {
                // Still answering, but the client ended its side: the stream is reset.
                streams.streamError(Http2Exception.stream(streamId, ErrorCode.STREAM_CLOSED, "DATA after END_STREAM"));
                return;
            }
            if (flood.idleFrame()) {
                throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "a flood of DATA on closed streams");
            }
            streams.refuse(streamId, ErrorCode.STREAM_CLOSED);
            return;
        }
        int data = length;
        if ((flags & Frame.PADDED) != 0) {
            int pad = length < 1 ? -1 : payload.get(payload.position()) & 0xff;
            if (pad < 0 || pad >= length) {
                Pieces.drop(payload);
                throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "DATA padding longer than the frame");
            }
            data = length - 1 - pad;
            payload.position(payload.position() + 1);
            payload.limit(payload.position() + data);
        }
        boolean end = (flags & Frame.END_STREAM) != 0;
        try {
            stream.received(length, data);
            if (end) {
                stream.remoteEnded();
            }
            if (data == 0 && !end && flood.idleFrame()) {
                throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "a flood of empty DATA frames");
            }
        } catch (Http2Exception e) {
            Pieces.drop(payload);
            if (e.streamId() == 0) {
                throw e;
            }
            streams.streamError(e);
            return;
        }
        peer.activity();
        Exchange exchange = stream.exchange();
        if (exchange == null || data == 0 && !end) {
            // Answered already (the body is read and dropped), or nothing to hand on.
            Pieces.drop(payload);
            stream.taken(data, true);
        } else {
            stream.taken(data, exchange.onRequestBody(payload, end));
        }
        if (end) {
            streams.retireIfDone(stream);
        }
    }
}
