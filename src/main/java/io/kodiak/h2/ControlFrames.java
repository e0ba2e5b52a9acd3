package io.kodiak.h2;

/**
 * The frames that steer a connection rather than carry a request: SETTINGS (applied, then
 * acknowledged), PING (answered), WINDOW_UPDATE (a window opens, queued DATA goes), RST_STREAM
 * (the client cancels), GOAWAY (the client leaves) and PRIORITY (deprecated: read, ignored). Those
 * that carry no progress count against the connection's {@link FloodGuard}, and so do the
 * client's resets.
 */
final class ControlFrames {
    private final StreamTable streams;
    private final Outbound out;
    private final FloodGuard flood;
    private final Http2Observer observer;
    private final ResponseEncoder encoder;
    private final Http2Peer peer;
    /** The client sent GOAWAY. */
    private final Runnable clientGoingAway;
    private boolean settingsReceived;

    ControlFrames(StreamTable streams, Outbound out, FloodGuard flood, Http2Observer observer, ResponseEncoder encoder,
                  Http2Peer peer, Runnable clientGoingAway) {
        this.streams = streams;
        this.out = out;
        this.flood = flood;
        this.observer = observer;
        this.encoder = encoder;
        this.peer = peer;
        this.clientGoingAway = clientGoingAway;
    }

    /** The client's first SETTINGS came (RFC 9113 §3.4: the preface's first frame). */
    boolean settingsReceived() {
        return settingsReceived;
    }

    void priority(int streamId, byte[] payload, int length) throws Http2Exception {
        if (streamId == 0) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "PRIORITY on stream 0");
        }
        if (length != 5) {
            throw Http2Exception.stream(streamId, ErrorCode.FRAME_SIZE_ERROR, "PRIORITY of " + length + " bytes");
        }
        if ((intAt(payload, 0) & Integer.MAX_VALUE) == streamId) {
            throw Http2Exception.stream(streamId, ErrorCode.PROTOCOL_ERROR, "a stream that depends on itself");
        }
        if (flood.idleFrame()) {
            throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "a flood of PRIORITY frames");
        }
    }

    void reset(int streamId, byte[] payload, int length) throws Http2Exception {
        if (length != 4) {
            throw Http2Exception.connection(ErrorCode.FRAME_SIZE_ERROR, "RST_STREAM of " + length + " bytes");
        }
        if (streamId == 0 || streamId > streams.lastStreamId()) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "RST_STREAM on an idle stream");
        }
        if (flood.reset()) {
            throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "too many streams reset (rapid reset)");
        }
        Http2Stream stream = streams.get(streamId);
        if (stream != null) {
            // The client cancelled: its exchange ends (the upstream's work for it with it).
            observer.streamReset(true, ErrorCode.nameOf(intAt(payload, 0)));
            streams.close(stream);
        }
    }

    void settings(int flags, int streamId, byte[] payload, int length) throws Http2Exception {
        if (streamId != 0) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "SETTINGS on a stream");
        }
        if ((flags & Frame.ACK) != 0) {
            if (length != 0) {
                throw Http2Exception.connection(ErrorCode.FRAME_SIZE_ERROR, "SETTINGS ack with a payload");
            }
            return;
        }
        if (length % 6 != 0) {
            throw Http2Exception.connection(ErrorCode.FRAME_SIZE_ERROR, "SETTINGS of " + length + " bytes");
        }
        if (settingsReceived && flood.idleFrame()) {
            throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "a flood of SETTINGS frames");
        }
        settingsReceived = true;
        for (int i = 0; i < length; i += 6) {
            int id = (payload[i] & 0xff) << 8 | payload[i + 1] & 0xff;
            apply(id, intAt(payload, i + 2) & 0xffffffffL);
        }
        out.write(out.frames().settingsAck());
        streams.flushAll();
    }

    private void apply(int id, long value) throws Http2Exception {
        switch (id) {
            case Frame.SETTINGS_HEADER_TABLE_SIZE -> encoder.tableSize((int) Math.min(value, Integer.MAX_VALUE));
            case Frame.SETTINGS_ENABLE_PUSH -> {
                if (value > 1) {
                    throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "SETTINGS_ENABLE_PUSH of " + value);
                }
            }
            case Frame.SETTINGS_INITIAL_WINDOW_SIZE -> {
                if (value > Frame.LARGEST_WINDOW) {
                    throw Http2Exception.connection(ErrorCode.FLOW_CONTROL_ERROR, "SETTINGS_INITIAL_WINDOW_SIZE of " + value);
                }
                if (!streams.shiftWindows(out.peerInitialWindow((int) value))) {
                    throw Http2Exception.connection(ErrorCode.FLOW_CONTROL_ERROR, "a stream's window over 2^31-1");
                }
            }
            case Frame.SETTINGS_MAX_FRAME_SIZE -> {
                if (value < Frame.DEFAULT_MAX_FRAME_SIZE || value > Frame.LARGEST_MAX_FRAME_SIZE) {
                    throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "SETTINGS_MAX_FRAME_SIZE of " + value);
                }
                out.peerMaxFrameSize((int) value);
            }
            default -> {
                // MAX_CONCURRENT_STREAMS (we push nothing), MAX_HEADER_LIST_SIZE (advisory), unknown: ignored.
            }
        }
    }

    void ping(int flags, int streamId, byte[] payload, int length) throws Http2Exception {
        if (length != 8) {
            throw Http2Exception.connection(ErrorCode.FRAME_SIZE_ERROR, "PING of " + length + " bytes");
        }
        if (streamId != 0) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "PING on a stream");
        }
        if (flood.idleFrame()) {
            throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "a flood of PING frames");
        }
        if ((flags & Frame.ACK) == 0) {
            out.write(out.frames().pingAck((intAt(payload, 0) & 0xffffffffL) << 32 | intAt(payload, 4) & 0xffffffffL));
        }
    }

    void goAway(int streamId, byte[] payload, int length) throws Http2Exception {
        if (streamId != 0) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "GOAWAY on a stream");
        }
        if (length < 8) {
            throw Http2Exception.connection(ErrorCode.FRAME_SIZE_ERROR, "GOAWAY of " + length + " bytes");
        }
        observer.goAway(true, ErrorCode.nameOf(intAt(payload, 4)));
        clientGoingAway.run();
    }

    void windowUpdate(int streamId, byte[] payload, int length) throws Http2Exception {
        if (length != 4) {
            throw Http2Exception.connection(ErrorCode.FRAME_SIZE_ERROR, "WINDOW_UPDATE of " + length + " bytes");
        }
        int increment = intAt(payload, 0) & Integer.MAX_VALUE;
        if (streamId == 0) {
            if (increment == 0) {
                throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "WINDOW_UPDATE of 0");
            }
            if (!out.connectionWindowUpdate(increment)) {
                throw Http2Exception.connection(ErrorCode.FLOW_CONTROL_ERROR, "the connection's window over 2^31-1");
            }
            peer.activity();
            streams.flushAll();
            return;
        }
        if (streamId > streams.lastStreamId()) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "WINDOW_UPDATE on an idle stream");
        }
        if (increment == 0) {
            throw Http2Exception.stream(streamId, ErrorCode.PROTOCOL_ERROR, "WINDOW_UPDATE of 0");
        }
        Http2Stream stream = streams.get(streamId);
        if (stream == null) {
            return;
        }
        stream.sendWindow += increment;
        if (stream.sendWindow > Frame.LARGEST_WINDOW) {
            throw Http2Exception.stream(streamId, ErrorCode.FLOW_CONTROL_ERROR, "the stream's window over 2^31-1");
        }
        peer.activity();
        streams.flush(stream);
    }

    static int intAt(byte[] bytes, int at) {
        return (bytes[at] & 0xff) << 24 | (bytes[at + 1] & 0xff) << 16 | (bytes[at + 2] & 0xff) << 8 | bytes[at + 3] & 0xff;
    }
}
