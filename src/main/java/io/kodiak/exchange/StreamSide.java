package io.kodiak.exchange;

import org.glassfish.grizzly.WriteHandler;

/**
 * What the exchange needs of either side whatever protocol carries it: room in the side's output
 * (the flow control of both directions, {@link Backpressure}) and the ends of a tunnel.
 */
public interface StreamSide {

    /** The side's output can take more now. */
    boolean hasRoom();

    /** {@code then} runs once the side's output has room again (or fails, when it closes first). */
    void whenRoom(WriteHandler then);

    /**
     * True when this side can end its output and keep reading (plain TCP, TLS 1.3 with the JDK's
     * engine): a tunnel's half-close can then be passed on instead of closing both ways.
     */
    boolean halfCloses();

    /** Ends this side's output once what was queued before is out; its input goes on. */
    void shutdownOutput();

    /** Closes this side once what was written is out. */
    void close();
}
