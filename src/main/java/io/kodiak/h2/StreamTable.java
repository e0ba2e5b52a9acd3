package io.kodiak.h2;

import io.kodiak.exchange.Exchange;

import java.util.HashMap;
import java.util.Map;

/**
 * The streams of one connection: those open, by id; the highest id the client has opened; their
 * DATA sent as the windows allow; and every way one leaves: retired once done, reset (by either
 * side), or closed with its connection. {@code emptied} hears when the last one left.
 */
final class StreamTable {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Http2Connection.class);
    private final Map<Integer, Http2Stream> streams = new HashMap<>();
    private final Outbound out;
    private final Http2Observer observer;
    private final Http2Peer peer;
    private final Runnable emptied;
    private final FloodGuard flood;
    private int lastStreamId;
    /** Streams whose exchange waits for room (a stream's queue or all streams' queues over their bound). */
    private int waiting;
    /** The ids of the streams that left last, newest at {@code closedNext - 1}: a late frame on one is STREAM_CLOSED. */
    private final int[] closed = new int[256];
    private int closedNext;

    StreamTable(Outbound out, Http2Observer observer, Http2Peer peer, FloodGuard flood, Runnable emptied) {
        this.flood = flood;
        this.out = out;
        this.observer = observer;
        this.peer = peer;
        this.emptied = emptied;
    }

    Http2Stream get(int id) {
        return streams.get(id);
    }

    int size() {
        return streams.size();
    }

    boolean isEmpty() {
        return streams.isEmpty();
    }

    /** The highest stream id the client opened (0: none yet). */
    int lastStreamId() {
        return lastStreamId;
    }

    /** {@code id} is above every id seen: it is the client's newest (opened, if only to be reset). */
    boolean opens(int id) {
        if (id <= lastStreamId) {
            return false;
        }
        lastStreamId = id;
        return true;
    }

    /** {@code id} was a stream of this connection that left lately (a late frame on it is no protocol error). */
    boolean recentlyClosed(int id) {
        for (int known : closed) {
            if (known == id) {
                return true;
            }
        }
        return false;
    }

    Http2Stream[] snapshot() {
        return streams.values().toArray(new Http2Stream[0]);
    }

    void add(Http2Stream stream) {
        streams.put(stream.id, stream);
        observer.streamOpened();
        peer.activity();
    }

    /** Sends what the windows allow of the stream's queued DATA; streams waiting for room hear when there is. */
    void flush(Http2Stream stream) {
        if (out.flush(stream)) {
            peer.activity();
        }
        stream.roomMayHaveCome();
        if (waiting > 0 && out.hasRoom()) {
            for (Http2Stream other : snapshot()) {
                if (other != stream) {
                    other.roomMayHaveCome();
                }
            }
        }
    }

    /** After a window opened for all (SETTINGS, the connection's WINDOW_UPDATE): every stream with DATA waiting. */
    void flushAll() {
        if (!out.anyQueued()) {
            return;
        }
        for (Http2Stream stream : snapshot()) {
            if (stream.hasQueued()) {
                flush(stream);
            }
        }
    }

    /** A stream's exchange starts ({@code +1}) or stops ({@code -1}) waiting for room. */
    void waiting(int change) {
        waiting += change;
    }

    /**
     * A stream with nothing left to do (its exchange over, its answer out) leaves the connection;
     * a request body still coming is declined (RST_STREAM NO_ERROR, RFC 9113 §8.1).
     */
    void retireIfDone(Http2Stream stream) {
        if (stream.exchange() != null || stream.hasQueued() || stream.state().sends() || streams.get(stream.id) != stream) {
            return;
        }
        if (stream.state().receives()) {
            out.write(out.frames().rstStream(stream.id, ErrorCode.NO_ERROR));
            observer.streamReset(false, ErrorCode.NO_ERROR.name());
        }
        remove(stream);
    }

    /** Resets a stream from our side: RST_STREAM, and its exchange, if any, ends as when a client leaves. */
    void reset(Http2Stream stream, ErrorCode code) {
        if (streams.get(stream.id) != stream) {
            return;
        }
        out.write(out.frames().rstStream(stream.id, code));
        observer.streamReset(false, code.name());
        close(stream);
    }

    /**
     * A stream error of the client's making: the stream is reset. Counted with the client's own
     * resets: a client that makes Kodiak reset streams (and drop their upstream work) as fast as
     * it opens them is a rapid reset too (CVE-2025-8671).
     */
    void streamError(Http2Exception e) throws Http2Exception {
        Http2Stream stream = streams.get(e.streamId());
        if (LOG.isDebugEnabled()) {
            LOG.debug("HTTP/2 stream {} from {} reset with {}: {}", e.streamId(), peer.address(), e.code(), e.getMessage());
        }
        if (stream != null) {
            reset(stream, e.code());
        } else {
            out.write(out.frames().rstStream(e.streamId(), e.code()));
            observer.streamReset(false, e.code().name());
        }
        if (flood.reset()) {
            throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "too many streams reset for errors");
        }
    }

    /** RST_STREAM on a stream no longer open (a late frame on it): nothing else to end. */
    void refuse(int streamId, ErrorCode code) {
        out.write(out.frames().rstStream(streamId, code));
        observer.streamReset(false, code.name());
    }

    /** The stream ends here (the client reset it, or it was reset): its exchange as when a client leaves. */
    void close(Http2Stream stream) {
        Exchange exchange = stream.detach();
        remove(stream);
        if (exchange != null) {
            exchange.onClientClosed();
        }
    }

    /** The connection ends: every stream with it. */
    void closeAll() {
        for (Http2Stream stream : snapshot()) {
            close(stream);
        }
    }

    /** Streams waiting for window the client never gave, when nothing moved for idle-timeout: reset (CANCEL). */
    void resetBlocked() {
        for (Http2Stream stream : snapshot()) {
            if (out.blocked(stream)) {
                reset(stream, ErrorCode.CANCEL);
            }
        }
    }

    /** The peer's SETTINGS_INITIAL_WINDOW_SIZE changed every open stream's window by {@code delta}; false past 2^31-1. */
    boolean shiftWindows(int delta) {
        for (Http2Stream stream : streams.values()) {
            stream.sendWindow += delta;
            if (stream.sendWindow > Frame.LARGEST_WINDOW) {
                return false;
            }
        }
        return true;
    }

    private void remove(Http2Stream stream) {
        streams.remove(stream.id);
        closed[closedNext] = stream.id;
        closedNext = (closedNext + 1) % closed.length;
        observer.streamClosed();
        stream.closed();
        if (streams.isEmpty()) {
            emptied.run();
        }
    }
}
