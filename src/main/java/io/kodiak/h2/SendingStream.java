package io.kodiak.h2;

import org.glassfish.grizzly.Buffer;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * A stream as {@link Outbound} sends it, whichever side of the connection opened it: its queued
 * DATA, its send window, and how it ends (END_STREAM on the last DATA, or a trailer block).
 */
public interface SendingStream {

    int id();

    StreamState state();

    /** Body pieces waiting for window, oldest first. */
    ArrayDeque<Buffer> queued();

    /** Nothing follows what is queued: the stream ends after it. */
    boolean endQueued();

    /** What the peer lets this stream send now. */
    long sendWindow();

    /** {@code n} DATA bytes went out. */
    void sent(int n);

    /** Our END_STREAM went out. */
    void localEnded();

    /**
     * The trailer block to end the stream with, encoded now (the HPACK table changes in the order
     * blocks are written); null: the stream ends with END_STREAM on its last DATA.
     */
    default ByteBuffer trailerBlock() {
        return null;
    }

    /** True when the stream ends with a trailer block rather than on DATA. */
    default boolean endsWithTrailers() {
        return false;
    }
}
