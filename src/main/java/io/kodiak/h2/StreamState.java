package io.kodiak.h2;

/**
 * RFC 9113 §5.1, the part a server's stream goes through (no push, so no reserved states).
 * Every move is checked: one the diagram does not draw is a bug and throws.
 *
 * <pre>
 *   OPEN --client's END_STREAM--> HALF_CLOSED_REMOTE --our END_STREAM--> CLOSED
 *   OPEN --our END_STREAM--> HALF_CLOSED_LOCAL --client's END_STREAM--> CLOSED
 *   any --RST_STREAM sent or received--> CLOSED
 * </pre>
 */
enum StreamState {
    OPEN,
    HALF_CLOSED_REMOTE,
    HALF_CLOSED_LOCAL,
    CLOSED;

    StreamState remoteEnded() {
        return switch (this) {
            case OPEN -> HALF_CLOSED_REMOTE;
            case HALF_CLOSED_LOCAL -> CLOSED;
            default -> throw new IllegalStateException("client's END_STREAM in " + this);
        };
    }

    StreamState localEnded() {
        return switch (this) {
            case OPEN -> HALF_CLOSED_LOCAL;
            case HALF_CLOSED_REMOTE -> CLOSED;
            default -> throw new IllegalStateException("our END_STREAM in " + this);
        };
    }

    /** The client may still send on the stream. */
    boolean receives() {
        return this == OPEN || this == HALF_CLOSED_LOCAL;
    }

    /** We may still send on the stream. */
    boolean sends() {
        return this == OPEN || this == HALF_CLOSED_REMOTE;
    }
}
