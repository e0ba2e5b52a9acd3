package io.kodiak.h2;

/**
 * A breach of RFC 9113 by the peer: a connection error (GOAWAY with {@link #code}, then the
 * connection closes) when {@link #streamId} is 0, else a stream error (RST_STREAM on that stream;
 * the rest of the connection is served).
 */
public final class Http2Exception extends Exception {
    private final ErrorCode code;
    private final int streamId;

    private Http2Exception(ErrorCode code, int streamId, String detail) {
        super(detail, null, false, false);
        this.code = code;
        this.streamId = streamId;
    }

    public static Http2Exception connection(ErrorCode code, String detail) {
        return new Http2Exception(code, 0, detail);
    }

    public static Http2Exception stream(int streamId, ErrorCode code, String detail) {
        return new Http2Exception(code, streamId, detail);
    }

    public ErrorCode code() {
        return code;
    }

    /** 0 for a connection error. */
    public int streamId() {
        return streamId;
    }
}
