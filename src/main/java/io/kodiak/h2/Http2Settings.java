package io.kodiak.h2;

/**
 * A listener's HTTP/2 settings (proxy.listener.http2-settings): what each connection announces
 * in its SETTINGS frame, and bounds it keeps. {@code maxHeaderListSize} follows the listener's
 * max-header-size.
 */
public record Http2Settings(int maxConcurrentStreams, int initialWindowSize, int maxFrameSize, int maxHeaderListSize) {
    public static final int DEFAULT_MAX_CONCURRENT_STREAMS = 128;
    public static final int DEFAULT_INITIAL_WINDOW_SIZE = 65_535;
    public static final int DEFAULT_MAX_FRAME_SIZE = 16_384;

    public Http2Settings {
        if (maxConcurrentStreams < 1 || initialWindowSize < 1 || maxFrameSize < Frame.DEFAULT_MAX_FRAME_SIZE
                || maxFrameSize > Frame.LARGEST_MAX_FRAME_SIZE || maxHeaderListSize < 1) {
            throw new IllegalArgumentException(toString());
        }
    }

    /** Client resets (and refused streams) per second a connection may make before ENHANCE_YOUR_CALM. */
    int maxResetsPerSecond() {
        return Math.max(100, 2 * maxConcurrentStreams);
    }

    /** Frames without progress (SETTINGS, PING, PRIORITY, empty DATA) per second before ENHANCE_YOUR_CALM. */
    int maxIdleFramesPerSecond() {
        return 1000;
    }
}
