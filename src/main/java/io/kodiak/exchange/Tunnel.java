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
    private boolean clientInputEnded;
    private boolean clientOutputEnded;
    private boolean upstreamInputEnded;
    private boolean upstreamOutputEnded;

    /** The client sends no more: the upstream gets no more bytes. Told again, nothing more happens. */
    void clientInputEnded(ClientStream client, UpstreamStream upstream) {
        if (clientInputEnded) {
            return;
        }
        clientInputEnded = true;
        if (clientOutputEnded || !client.halfCloses() || !upstream.halfCloses()) {
            client.close();
        } else {
            upstreamOutputEnded = true;
            upstream.shutdownOutput();
        }
    }

    /** The upstream sends no more: the client gets no more bytes. Told again, nothing more happens. */
    void upstreamInputEnded(UpstreamStream upstream, ClientStream client) {
        if (upstreamInputEnded) {
            return;
        }
        upstreamInputEnded = true;
        if (upstreamOutputEnded || !upstream.halfCloses() || !client.halfCloses()) {
            upstream.close();
        } else {
            clientOutputEnded = true;
            client.shutdownOutput();
        }
    }
}
