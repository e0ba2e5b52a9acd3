package io.kodiak.h1;

import io.kodiak.exchange.PreparedRequest;
import io.kodiak.exchange.UpstreamStream;
import io.kodiak.http.ChunkFramer;
import io.kodiak.transport.OneWrite;
import io.kodiak.transport.Pieces;
import io.kodiak.transport.WriteQueues;
import io.kodiak.upstream.ExchangeDeadlines;
import io.kodiak.upstream.ResponseListener;
import io.kodiak.upstream.UpstreamConnection;
import io.kodiak.upstream.UpstreamPool;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;

/**
 * An attempt's request on an HTTP/1.1 upstream connection, which carries it alone: the head as
 * prepared, the body framed as the head says (chunked, or as it comes), the connection's deadline
 * and read gate, and its return to the pool.
 */
final class Http1UpstreamStream extends ConnectionSide implements UpstreamStream {
    private final UpstreamConnection state;
    private final UpstreamPool pool;
    private final ResponseListener listener;
    private final ExchangeDeadlines deadlines;
    private final boolean reused;
    private boolean chunked;

    Http1UpstreamStream(Connection<?> connection, UpstreamPool pool, ResponseListener listener,
                        ExchangeDeadlines deadlines, WriteQueues queues) {
        super(connection, queues);
        this.pool = pool;
        this.listener = listener;
        this.deadlines = deadlines;
        this.state = UpstreamConnection.of(connection);
        this.reused = state.bind(listener);
    }

    @Override
    public void sendRequest(PreparedRequest prepared, Buffer held, boolean last) {
        Http1Request request = (Http1Request) prepared;
        chunked = request.chunked();
        Buffer body = framed(held, last);
        write(body == null ? request.head().duplicate() : OneWrite.ofKept(connection.getMemoryManager(), request.head(), body));
    }

    @Override
    public void sendBody(Buffer piece, boolean last) {
        write(framed(piece, last));
    }

    /** {@code piece} as the upstream reads it: a chunk (and the last chunk after the last piece), or as it came; null: nothing to write. */
    private Buffer framed(Buffer piece, boolean last) {
        if (chunked) {
            return ChunkFramer.frame(connection.getMemoryManager(), piece, last);
        }
        if (piece == null || !piece.hasRemaining()) {
            Pieces.drop(piece);
            return null;
        }
        return piece;
    }

    @Override
    public void relay(Buffer bytes) {
        write(bytes);
    }

    @Override
    public void resumeReads() {
        state.resumeReads();
    }

    @Override
    public void armDeadline(long millis) {
        deadlines.arm(state, millis);
    }

    @Override
    public boolean deadlineSet() {
        return state.deadlineSet();
    }

    @Override
    public boolean closedBeforeBound() {
        // Unbinding first makes sure the close event and this check never both report it.
        return !connection.isOpen() && state.unbind(listener);
    }

    @Override
    public boolean reused() {
        return reused;
    }

    @Override
    public boolean headBegun() {
        return state.headBegun();
    }

    @Override
    public Throwable tlsFailure() {
        return state.tlsFailure();
    }

    @Override
    public void finish(boolean reusable) {
        deadlines.disarm(state);
        state.unbind(listener);
        if (reusable) {
            pool.release(connection);
        } else {
            pool.discard(connection);
        }
    }
}
