package io.kodiak.h2;

/** RFC 9113 §6: frame types, flags, settings identifiers and the limits the framing sets. */
public final class Frame {
    public static final int HEADER_LENGTH = 9;

    public static final int DATA = 0x0;
    public static final int HEADERS = 0x1;
    public static final int PRIORITY = 0x2;
    public static final int RST_STREAM = 0x3;
    public static final int SETTINGS = 0x4;
    public static final int PUSH_PROMISE = 0x5;
    public static final int PING = 0x6;
    public static final int GOAWAY = 0x7;
    public static final int WINDOW_UPDATE = 0x8;
    public static final int CONTINUATION = 0x9;

    public static final int END_STREAM = 0x1;
    public static final int ACK = 0x1;
    public static final int END_HEADERS = 0x4;
    public static final int PADDED = 0x8;
    public static final int PRIORITY_FLAG = 0x20;

    public static final int SETTINGS_HEADER_TABLE_SIZE = 0x1;
    public static final int SETTINGS_ENABLE_PUSH = 0x2;
    public static final int SETTINGS_MAX_CONCURRENT_STREAMS = 0x3;
    public static final int SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
    public static final int SETTINGS_MAX_FRAME_SIZE = 0x5;
    public static final int SETTINGS_MAX_HEADER_LIST_SIZE = 0x6;

    /** Every peer starts from these until its SETTINGS says otherwise. */
    public static final int DEFAULT_WINDOW = 65_535;
    public static final int DEFAULT_MAX_FRAME_SIZE = 16_384;
    public static final int LARGEST_MAX_FRAME_SIZE = 16_777_215;
    public static final int LARGEST_WINDOW = Integer.MAX_VALUE;

    /** The client connection preface (RFC 9113 §3.4), before its first SETTINGS frame. */
    public static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private Frame() {
    }

    public static String typeName(int type) {
        return switch (type) {
            case DATA -> "DATA";
            case HEADERS -> "HEADERS";
            case PRIORITY -> "PRIORITY";
            case RST_STREAM -> "RST_STREAM";
            case SETTINGS -> "SETTINGS";
            case PUSH_PROMISE -> "PUSH_PROMISE";
            case PING -> "PING";
            case GOAWAY -> "GOAWAY";
            case WINDOW_UPDATE -> "WINDOW_UPDATE";
            case CONTINUATION -> "CONTINUATION";
            default -> "0x" + Integer.toHexString(type);
        };
    }
}
