package io.kodiak.exchange;

/**
 * A tunnel's half-closes, after a 101. Each direction ends on its own: a peer that shuts down its
 * sending side (its FIN; over TLS 1.3, its close_notify first) may still read and wait for an
 * answer, as a tunnelled protocol may have it do. So the end of one side's input is passed on as
 * the end of the other side's output, and the opposite direction goes on. A side closes once both
 * its directions are done, and its close ends the tunnel, as any close does. Where a side cannot
 * end one direction alone ({@link StreamSide#halfCloses}), only a close can tell, and the tunnel
 * ends at once.
 */
final class Tunnel {
    private final Directions clientSide = new Directions();
    private final Directions upstreamSide = new Directions();

    /** The client sends no more: the upstream gets no more bytes. Told again, nothing more happens. */
    void clientInputEnded(ClientStream client, UpstreamStream upstream) {
        passOn(clientSide, client, upstreamSide, upstream);
    }

    /** The upstream sends no more: the client gets no more bytes. Told again, nothing more happens. */
    void upstreamInputEnded(UpstreamStream upstream, ClientStream client) {
        passOn(upstreamSide, upstream, clientSide, client);
    }

    /** {@code from}'s input ended: {@code to}'s output ends, or {@code from} closes when only a close can tell. */
    private static void passOn(Directions fromEnds, StreamSide from, Directions toEnds, StreamSide to) {
        if (fromEnds.inputEnded) {
            return;
        }
        fromEnds.inputEnded = true;
        if (fromEnds.outputEnded || !from.halfCloses() || !to.halfCloses()) {
            from.close();
        } else {
            toEnds.outputEnded = true;
            to.shutdownOutput();
        }
    }

    /** Which directions of one side are done. */
    private static final class Directions {
        private boolean inputEnded;
        private boolean outputEnded;
    }
}
