package io.kodiak.exchange;

import io.kodiak.proxyprotocol.ProxyHeaderSender;
import io.kodiak.http.ResponseHead;
import io.kodiak.http.Violation;
import io.kodiak.loop.EventLoops;
import io.kodiak.transport.Pieces;
import io.kodiak.upstream.ResponseListener;
import io.kodiak.upstream.UpstreamConnection;
import io.kodiak.upstream.UpstreamServer;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.CompletionHandler;
import org.glassfish.grizzly.Connection;

/**
 * One try of an exchange: a server, the stream on the connection its pool hands over, and what
 * that stream reports. A retry is a new attempt; the one it replaces is {@linkplain #abandon() abandoned}, and
 * whatever it still hears (a connect completing late, a late head, a close, a deadline) dies here
 * instead of reaching the exchange. Events reach the exchange on its loop: those that start on
 * another thread (the timer, a pool's wait, a connect completed on a selector while the loop is
 * a worker lane) are posted to it first.
 */
final class UpstreamAttempt implements ResponseListener, CompletionHandler<Connection>, StreamWaiter {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(UpstreamAttempt.class);
    private final Exchange exchange;
    private final UpstreamServer server;
    /** A connection of its own, not from the pool (the retry after a stale pooled connection). */
    private final boolean fresh;
    private final long askedNanos = System.nanoTime();
    /** When the attempt began: a server's trial counts only the verdicts of attempts made during it. */
    private final long startMillis;
    private UpstreamStream stream;
    /** The pool answered (Grizzly 2.3.35's pool can report one failed connect twice: the first answer counts). */
    private boolean settled;
    /** False once the exchange let this attempt go (a retry, or the end). */
    private boolean live = true;

    UpstreamAttempt(Exchange exchange, UpstreamServer server, boolean fresh) {
        this.exchange = exchange;
        this.server = server;
        this.fresh = fresh;
        // By the clock the server's passive health compares it with (the wall clock outside tests).
        this.startMillis = server.now();
    }

    /** The server takes the attempt (its in-flight count), and its pool is asked for a connection. */
    void begin() {
        server.begin();
        acquire();
    }

    /** Asks the server's pool for a connection; {@link #completed} or {@link #failed} follow, on the exchange's loop. */
    void acquire() {
        UpstreamProtocol protocol = exchange.protocol();
        if (protocol.multiplexes()) {
            protocol.acquire(server.pool(), fresh, this, this);
        } else if (fresh) {
            server.pool().acquireFresh(this);
        } else {
            // With PROXY headers, the connection kept for this client connection, if any.
            server.pool().acquire(exchange.attempts().sendsProxyHeader() ? exchange.client().origin() : null, this);
        }
    }

    /**
     * The same server once more, on a connection of its own, not a pooled one (which may be as
     * stale as the one that failed); the server's count of this exchange carries over. The caller
     * makes it current, then {@linkplain #acquire() acquires}.
     */
    UpstreamAttempt again() {
        return new UpstreamAttempt(exchange, server, true);
    }

    UpstreamServer server() {
        return server;
    }

    boolean fresh() {
        return fresh;
    }

    long startMillis() {
        return startMillis;
    }

    long waitedNanos() {
        return System.nanoTime() - askedNanos;
    }

    /** Null until the pool handed a connection over. */
    UpstreamStream stream() {
        return stream;
    }

    /** The connection carried a request before this one (a pooled one). */
    boolean reused() {
        return stream != null && stream.reused() && !fresh;
    }

    /**
     * The exchange lets this attempt go: nothing it still hears reaches the exchange, and its
     * connection, if it has one, goes back to the pool when {@code reusable}, else is closed.
     */
    void abandon(boolean reusable) {
        live = false;
        if (stream != null) {
            stream.finish(reusable);
        }
    }

    /**
     * The event is about this attempt's stream. Only the attempt bound to a connection hears its
     * events; once let go, its late ones (already read, or posted from another thread) stop here.
     */
    private boolean current(UpstreamConnection from) {
        return live && stream != null;
    }

    // ------------------------------------------------------------------ the pool's answer

    @Override
    public void completed(Connection handed) {
        if (!exchange.loop().here()) {
            exchange.loop().post(() -> completed(handed));
            return;
        }
        if (settled || !live) {
            // Reported after a failure, or after the exchange moved on: nobody waits for it.
            server.pool().discard(handed);
            return;
        }
        settled = true;
        assert EventLoops.checkOwner(exchange.loop().owns(handed)) : "upstream connection on another loop than its exchange";
        if (!exchange.connecting(this)) {
            server.pool().discard(handed);
        } else if (!fresh && !exchange.request().method().isIdempotent() && UpstreamConnection.reusedButGone(handed)) {
            // A request that must not be sent twice, and its pooled connection was reset while idle
            // (the server died a moment ago): nothing is sent yet, so a new connection is asked
            // for instead, whose failure sends the request to the next server.
            server.pool().discard(handed);
            exchange.attempts().retryFresh(this, "stale_connection");
        } else if (exchange.attempts().sendsProxyHeader() && !ProxyHeaderSender.openFor(handed, exchange.client().origin())) {
            // A connection that spoke for another client connection: never used for this one.
            LOG.error("upstream {}: a connection that sent another client's PROXY header was handed to {}; closed, a new one asked for",
                    server.authority(), exchange.client().address());
            server.pool().discard(handed);
            exchange.attempts().retryFresh(this, "claimed_connection");
        } else {
            stream = exchange.protocol().bind(handed, server.pool(), this);
            exchange.onConnected(this);
        }
    }

    /** A stream on a shared (h2) connection, handed over on the exchange's loop. */
    @Override
    public void streamReady(UpstreamStream ready) {
        if (!exchange.loop().here()) {
            exchange.loop().post(() -> streamReady(ready));
            return;
        }
        if (settled || !live || !exchange.connecting(this)) {
            // Nobody waits for it any more: its slot goes back.
            ready.finish(true);
            return;
        }
        settled = true;
        stream = ready;
        exchange.onConnected(this);
    }

    @Override
    public void streamFailed(Throwable error) {
        failed(error);
    }

    @Override
    public void failed(Throwable error) {
        if (!exchange.loop().here()) {
            exchange.loop().post(() -> failed(error));
            return;
        }
        if (settled || !live) {
            return;
        }
        settled = true;
        exchange.attempts().failed(this, AttemptFailure.connect(error, server.pool(), fresh, waitedNanos()));
    }

    @Override
    public void cancelled() {
        failed(null);
    }

    @Override
    public void updated(Connection result) {
    }

    // ------------------------------------------------------------------ the connection's events

    @Override
    public boolean requestWasHead() {
        return exchange.request().isHead();
    }

    @Override
    public boolean upgradeRequested() {
        return exchange.request().upgrade();
    }

    @Override
    public boolean onInterimResponse(UpstreamConnection from, ResponseHead head) {
        return !current(from) || exchange.onInterimResponse(this, head);
    }

    @Override
    public boolean onResponseHead(UpstreamConnection from, ResponseHead head, Buffer firstPiece) {
        if (!current(from)) {
            Pieces.drop(firstPiece);
            return true;
        }
        return exchange.onResponseHead(this, head, firstPiece);
    }

    @Override
    public boolean onResponseBody(UpstreamConnection from, Buffer piece) {
        if (!current(from)) {
            Pieces.drop(piece);
            return true;
        }
        return exchange.onResponseBody(piece);
    }

    @Override
    public void onResponseEnd(UpstreamConnection from, ResponseHead head, Buffer lastPiece, boolean reusable) {
        if (head == null && !exchange.loop().here()) {
            exchange.loop().post(() -> onResponseEnd(from, null, lastPiece, reusable));
            // A body delimited by the connection's close ends with the close event, which runs on
            // the thread that closed it (it carries no head to keep beyond the call).
            return;
        }
        if (!current(from)) {
            Pieces.drop(lastPiece);
            return;
        }
        exchange.onResponseEnd(this, head, lastPiece, reusable);
    }

    @Override
    public void onResponseTrailers(UpstreamConnection from, io.kodiak.http.Trailers trailers) {
        if (current(from)) {
            exchange.onResponseTrailers(trailers);
        }
    }

    @Override
    public boolean onTunnelBytes(UpstreamConnection from, Buffer bytes) {
        return onResponseBody(from, bytes);
    }

    @Override
    public void onTunnelInputEnded(UpstreamConnection from) {
        if (current(from)) {
            exchange.onTunnelInputEnded(this);
        }
    }

    @Override
    public void onInvalidResponse(UpstreamConnection from, Violation violation) {
        if (current(from)) {
            exchange.attempts().failed(this, AttemptFailure.invalid(violation.text()));
        }
    }

    @Override
    public void onInvalidResponse(UpstreamConnection from, String detail) {
        if (current(from)) {
            exchange.attempts().failed(this, AttemptFailure.invalid(detail));
        }
    }

    @Override
    public void onUpstreamClosed(UpstreamConnection from) {
        if (!exchange.loop().here()) {
            exchange.loop().post(() -> onUpstreamClosed(from));
            return;
        }
        if (current(from)) {
            exchange.onUpstreamClosed(this);
        }
    }

    @Override
    public void onDeadline(UpstreamConnection from) {
        if (!exchange.loop().here()) {
            exchange.loop().post(() -> onDeadline(from));
            return;
        }
        // The timer cleared the deadline as it passed; set again while this waited for the loop,
        // the exchange made progress (a head, a body piece) and the deadline no longer holds.
        if (current(from) && !stream.deadlineSet()) {
            exchange.onDeadline(this);
        }
    }
}
