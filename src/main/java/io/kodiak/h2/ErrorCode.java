package io.kodiak.h2;

/** RFC 9113 §7: the codes a RST_STREAM or GOAWAY carries. */
public enum ErrorCode {
    NO_ERROR(0x0),
    PROTOCOL_ERROR(0x1),
    INTERNAL_ERROR(0x2),
    FLOW_CONTROL_ERROR(0x3),
    SETTINGS_TIMEOUT(0x4),
    STREAM_CLOSED(0x5),
    FRAME_SIZE_ERROR(0x6),
    REFUSED_STREAM(0x7),
    CANCEL(0x8),
    COMPRESSION_ERROR(0x9),
    CONNECT_ERROR(0xa),
    ENHANCE_YOUR_CALM(0xb),
    INADEQUATE_SECURITY(0xc),
    HTTP_1_1_REQUIRED(0xd);

    public final int code;

    ErrorCode(int code) {
        this.code = code;
    }

    /** The name for a code a peer sent; unknown codes are kept as their number (RFC 9113 §7: not an error). */
    public static String nameOf(int code) {
        for (ErrorCode known : values()) {
            if (known.code == code) {
                return known.name();
            }
        }
        return "0x" + Integer.toHexString(code);
    }
}
