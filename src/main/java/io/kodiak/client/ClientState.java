package io.kodiak.client;

/**
 * Where an HTTP/1.1 client connection stands. Every move is checked by {@link #to}: a move the
 * diagram does not draw is a bug and throws.
 *
 * <pre>
 *   HEAD --the HTTP/2 preface, first thing on the connection--> H2 --closed--> CLOSING
 *   HEAD --head read--> BODY (a body follows) | WAIT (none) | CLOSING (refused, closes) | DISCARD (refused, body skipped)
 *   BODY --body read--> WAIT        BODY --exchange ended first--> DISCARD | CLOSING     BODY --101--> TUNNEL
 *   WAIT --exchange ended--> HEAD | CLOSING      WAIT --101--> TUNNEL --either side closed--> CLOSING
 *   DISCARD --body read--> HEAD
 *   HEAD | BODY | DISCARD --client's input ended, nothing held--> CLOSING
 *   any --closed, or idle too long--> CLOSING
 *   (in TUNNEL the input's end is passed on to the upstream, and the tunnel goes on the other way)
 *   (in WAIT, or with bytes held, the input's end closes the connection after the last answer;
 *   a 101 that comes after it closes the connection instead of opening a tunnel)
 * </pre>
 */
enum ClientState {
    /** Reading a request head (or waiting for one: the connection is idle). */
    HEAD,
    /** Reading the current request's body into its exchange. */
    BODY,
    /** Reading and dropping what is left of the body of a request already answered. */
    DISCARD,
    /** The request was read; its exchange runs. Bytes that arrive now are the next request's: held. */
    WAIT,
    /** After a 101: bytes go to the exchange as they come. */
    TUNNEL,
    /** The client opened with the HTTP/2 preface: its bytes are frames, for its {@code h2.Http2Connection}. */
    H2,
    /** Closing once what was written is out; nothing read is handled any more. */
    CLOSING;

    /** The move to {@code next}, checked against the diagram. */
    ClientState to(ClientState next) {
        if (!allows(next)) {
            throw new IllegalStateException("client connection from " + this + " to " + next);
        }
        return next;
    }

    private boolean allows(ClientState next) {
        return next == CLOSING || switch (this) {
            case HEAD -> next == BODY || next == WAIT || next == DISCARD || next == H2;
            case BODY -> next == WAIT || next == DISCARD || next == TUNNEL;
            case WAIT -> next == HEAD || next == TUNNEL;
            case DISCARD -> next == HEAD;
            case TUNNEL, H2, CLOSING -> false;
        };
    }
}
