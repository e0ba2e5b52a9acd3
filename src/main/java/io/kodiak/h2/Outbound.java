package io.kodiak.h2;

import io.kodiak.transport.Pieces;
import io.kodiak.transport.WriteQueues;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.WriteHandler;

import java.nio.ByteBuffer;

/**
 * What one connection sends, and the flow control toward the client (RFC 9113 §6.9): the
 * connection's send window and the peer's settings that shape frames, a stream's queued DATA
 * sent as far as both windows allow, and a bound on what all streams together may queue (the
 * per-connection write-queue cap): past it every stream says it has no room, so a client that
 * opens no window holds at most that much.
 */
public final class Outbound {
    /** Bytes a stream may hold beyond its send window before whatever feeds it pauses. */
    public static final int STREAM_BUFFER_LIMIT = 64 * 1024;

    private final Connection<?> connection;
    private final WriteQueues queues;
    private final FrameWriter frames;
    private final long queueLimit;
    private long connectionWindow = Frame.DEFAULT_WINDOW;
    private int peerInitialWindow = Frame.DEFAULT_WINDOW;
    private int peerMaxFrameSize = Frame.DEFAULT_MAX_FRAME_SIZE;
    /** DATA bytes waiting on all streams for window. */
    private long queued;

    public Outbound(Connection<?> connection, WriteQueues queues, FrameWriter frames) {
        this.connection = connection;
        this.queues = queues;
        this.frames = frames;
        this.queueLimit = Math.max(queues.perConnection(), STREAM_BUFFER_LIMIT);
    }

    public FrameWriter frames() {
        return frames;
    }

    public void write(Buffer bytes) {
        queues.write(connection, bytes);
    }

    public void headers(int streamId, ByteBuffer block, boolean endStream) {
        write(frames.headers(streamId, block, endStream, peerMaxFrameSize));
    }

    /** The client's write queue and the streams' queues together have room. */
    public boolean hasRoom() {
        return queued < queueLimit && queues.hasRoom(connection);
    }

    /** Waits for the write queue (the streams' own limit is the stream's to wait for). */
    public void whenRoom(WriteHandler then) {
        queues.whenRoom(connection, then);
    }

    public boolean writeQueueHasRoom() {
        return queues.hasRoom(connection);
    }

    public void queued(long n) {
        queued += n;
    }

    /** DATA bytes waiting on all streams for window. */
    public long queuedBytes() {
        return queued;
    }

    /** Some stream has DATA waiting for window. */
    public boolean anyQueued() {
        return queued > 0;
    }

    public int peerInitialWindow() {
        return peerInitialWindow;
    }

    /** The peer's SETTINGS_INITIAL_WINDOW_SIZE: returns the change every stream's window takes. */
    public int peerInitialWindow(int value) {
        int delta = value - peerInitialWindow;
        peerInitialWindow = value;
        return delta;
    }

    public void peerMaxFrameSize(int value) {
        peerMaxFrameSize = value;
    }

    /** A WINDOW_UPDATE on stream 0; false when it takes the window past 2^31-1. */
    public boolean connectionWindowUpdate(int increment) {
        connectionWindow += increment;
        return connectionWindow <= Frame.LARGEST_WINDOW;
    }

    /** The stream cannot send for want of window (its own, or the connection's). */
    boolean blocked(SendingStream stream) {
        return !stream.queued().isEmpty() && (stream.sendWindow() <= 0 || connectionWindow <= 0);
    }

    /**
     * Sends what the windows allow of the stream's queued DATA, and its end once all of it went
     * (END_STREAM on the last DATA, or its trailer block); true when anything went out.
     */
    public boolean flush(SendingStream stream) {
        boolean moved = false;
        boolean trailers = stream.endsWithTrailers();
        while (stream.state().sends()) {
            Buffer next = stream.queued().peek();
            if (next == null) {
                if (stream.endQueued()) {
                    ByteBuffer block = trailers ? stream.trailerBlock() : null;
                    if (block != null) {
                        headers(stream.id(), block, true);
                    } else if (trailers) {
                        // The trailers could not be encoded: the response is not whole, so no END_STREAM.
                        write(frames.rstStream(stream.id(), ErrorCode.INTERNAL_ERROR));
                    } else {
                        write(frames.dataHeader(stream.id(), 0, true));
                    }
                    stream.localEnded();
                    moved = true;
                }
                break;
            }
            long window = Math.min(stream.sendWindow(), connectionWindow);
            if (window <= 0) {
                break;
            }
            int n = (int) Math.min(Math.min(next.remaining(), window), peerMaxFrameSize);
            Buffer piece = n == next.remaining() ? stream.queued().poll() : Pieces.slice(next, n);
            boolean end = !trailers && stream.queued().isEmpty() && stream.endQueued();
            write(frames.dataHeader(stream.id(), n, end));
            write(piece);
            connectionWindow -= n;
            queued -= n;
            stream.sent(n);
            moved = true;
            if (end) {
                stream.localEnded();
                break;
            }
        }
        return moved;
    }
}
