package io.kodiak.h2;

/**
 * RFC 9113 §5.1, the part a stream goes through once its HEADERS went either way (no push, so
 * no reserved states); "remote" is the peer, the client on a server's side.
 * Every move is checked: one the diagram does not draw is a bug and throws.
 *
 * <pre>
 *   OPEN --peer's END_STREAM--> HALF_CLOSED_REMOTE --our END_STREAM--> CLOSED
 *   OPEN --our END_STREAM--> HALF_CLOSED_LOCAL --peer's END_STREAM--> CLOSED
 *   any --RST_STREAM sent or received--> CLOSED
 * </pre>
 */
public enum StreamState {
    OPEN,
    HALF_CLOSED_REMOTE,
    HALF_CLOSED_LOCAL,
    CLOSED;

    public StreamState remoteEnded() {
        return switch (this) {
            case OPEN -> HALF_CLOSED_REMOTE;
            case HALF_CLOSED_LOCAL -> CLOSED;
            default -> throw new IllegalStateException("the peer's END_STREAM in " + this);
        };
    }

    public StreamState localEnded() {
        return switch (this) {
            case OPEN -> HALF_CLOSED_LOCAL;
            case HALF_CLOSED_REMOTE -> CLOSED;
            default -> throw new IllegalStateException("our END_STREAM in " + this);
        };
    }

    /** The peer may still send on the stream. */
    public boolean receives() {
        return this == OPEN || this == HALF_CLOSED_LOCAL;
    }

    /** We may still send on the stream. */
    public boolean sends() {
        return this == OPEN || this == HALF_CLOSED_REMOTE;
    }
}
