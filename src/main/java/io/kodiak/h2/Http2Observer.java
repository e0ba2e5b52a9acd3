package io.kodiak.h2;

/**
 * Hears what HTTP/2 connections do, for the metrics: streams opened and closed, streams reset
 * (by whom and why, refusals among them) and GOAWAYs both ways. Called on the connection's loop:
 * implementations must be cheap and must not block.
 */
public interface Http2Observer {
    Http2Observer NONE = new Http2Observer() {
        @Override
        public void streamOpened() {
        }

        @Override
        public void streamClosed() {
        }

        @Override
        public void streamReset(boolean byClient, String code) {
        }

        @Override
        public void goAway(boolean byClient, String code) {
        }
    };

    void streamOpened();

    void streamClosed();

    /** A stream reset: by the client ({@code byClient}) or by Kodiak, with the RST_STREAM's code (REFUSED_STREAM: refused). */
    void streamReset(boolean byClient, String code);

    /** A GOAWAY sent ({@code byClient} false) or received, with its code. */
    void goAway(boolean byClient, String code);

    /** An h2 connection to an upstream server opened (+1) or closed (-1). */
    default void upstreamConnection(int change) {
    }

    /** An upstream server reset one of our streams, with the RST_STREAM's code. */
    default void upstreamStreamReset(String code) {
    }

    /** An upstream server sent GOAWAY, with its code. */
    default void upstreamGoAway(String code) {
    }
}
