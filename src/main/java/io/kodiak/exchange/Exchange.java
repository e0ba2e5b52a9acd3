package io.kodiak.exchange;

import io.kodiak.http.ChunkFramer;
import io.kodiak.http.RequestHead;
import io.kodiak.http.ResponseHead;
import io.kodiak.http.Violation;
import io.kodiak.loop.EventLoop;
import io.kodiak.loop.EventLoops;
import io.kodiak.routing.Rewrites;
import io.kodiak.routing.Route;
import io.kodiak.upstream.ResponseListener;
import io.kodiak.upstream.UpstreamConnection;
import io.kodiak.transport.OneWrite;
import io.kodiak.transport.Pieces;
import io.kodiak.upstream.UpstreamGroup;
import io.kodiak.upstream.UpstreamPool;
import io.kodiak.upstream.UpstreamServer;
import io.kodiak.config.UpstreamGroupConfig.RetryOn;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.CompletionHandler;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.WriteHandler;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.CompositeBuffer;
import org.glassfish.grizzly.memory.MemoryManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeoutException;

/**
 * One request and its response, from the parsed request head to the last response byte. Its
 * {@link Phase} is the one record of where it stands; it owns everything whose lifetime is the
 * exchange: the upstream connection (released to the pool only after a complete, reusable
 * response; discarded on any error), the deadlines, and the one transition to an end after which
 * nothing more is written anywhere ({@link #fail} is the single failure path).
 *
 * <p>Bytes move as the codecs hand them over: the upstream request head is built once, from the
 * client's head bytes; body pieces are slices of the buffers they were read into, re-framed (a
 * size line and a CRLF around them) only where the two sides' framing differs. When the receiving
 * side's write queue is over its limit, reads on the sending side stop until the writer reports
 * room ({@link io.kodiak.transport.ReadGate}).
 *
 * <p>Two threads touch an exchange: the client connection's selector thread and the upstream
 * connection's. State changes happen under the exchange's lock; pool calls and the client side's
 * end-of-exchange handling, which may run other exchanges' code, happen outside it.
 */
public final class Exchange implements ResponseListener {
    private static final Logger LOG = LoggerFactory.getLogger(Exchange.class);
    private static final int CLIENT_CLOSED_STATUS = 499;
    /** Request body held while no upstream connection is ready yet; beyond it, client reads pause. */
    private static final int MAX_HELD_BEFORE_CONNECTED = 64 * 1024;
    private static final byte[] CONTINUE_100 = "HTTP/1.1 100 Continue\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final ForwardingServices services;
    /** The configuration the exchange started under, kept to its end whatever a reload changes. */
    private final Generation generation;
    private final ClientSide client;
    private final ForwardedRequest request;
    private final Route route;
    private final UpstreamGroup group;
    /** The hash balancer's key for this request, or null. */
    private final String hashKey;
    private final MemoryManager memory;
    private final Buffer upstreamHead;
    private final long startNanos = System.nanoTime();
    /** The loop that owns the client connection, and so this exchange and its upstream connections. */
    private final EventLoop loop;

    // Guarded by this.
    private Phase phase = Phase.CONNECTING;
    private boolean bodyReceived;
    private Connection<?> upstream;
    private UpstreamConnection upstreamState;
    private boolean upstreamReused;
    /** The stale-connection retry (same server, a new connection) was used. */
    private boolean retried;
    /** The current attempt's server; null before the first and between attempts. */
    private UpstreamServer server;
    /** Servers tried, one bit per server of the group; and how many attempts went out. */
    private long tried;
    private int attempts;
    /** When the current attempt began: a server's trial counts only the verdicts of attempts made during it. */
    private long attemptStartMillis;
    /** host:port of every server tried, in order, for the access log. */
    private String serversTried;
    private boolean interimForwarded;
    /** A {@link ResumeUpstream} waits for room in the client's queue and has not run yet. */
    private boolean resumeAwaited;
    private CompositeBuffer held;
    private boolean clientPaused;
    private boolean continueSent;
    private ClientFraming framing;
    private boolean keepClient;
    private long requestBytes;
    private long responseBytes;
    private long sentNanos = -1;
    private long firstByteNanos = -1;
    private int status;

    Exchange(ForwardingServices services, Generation generation, ClientSide client, RequestHead head,
             ForwardedRequest request, Route route, Rewrites.Target target) {
        this.services = services;
        this.generation = generation;
        this.client = client;
        this.request = request;
        this.route = route;
        this.group = generation.groupFor(route);
        this.hashKey = HashKeys.of(group.hashKey(), head, request.clientAddress());
        this.memory = client.connection().getMemoryManager();
        this.loop = services.loops().of(client.connection());
        this.upstreamHead = UpstreamRequestHead.build(head, route, target,
                group.settings().pool().persistentConnections(), request, memory);
        this.bodyReceived = !head.hasBody();
    }

    /** Picks a server and asks its pool for a connection; the request goes out once one is ready (unless the exchange already ended). */
    public void start() {
        assert owned() : Thread.currentThread().getName() + " is not " + loop;
        group.requestStarted();
        if (!attempt()) {
            // Not expected: the first attempt always finds a server (panic mode at worst).
            fail(ProxyError.CONNECT_FAILED, "no server of group " + group.name() + " to try");
        }
    }

    /**
     * The next attempt: a server of the group not tried yet, and a connection from its pool.
     * False when no server is left to try.
     */
    private boolean attempt() {
        UpstreamServer next = group.pick(tried, hashKey);
        if (next == null) {
            return false;
        }
        synchronized (this) {
            if (phase != Phase.CONNECTING) {
                return true;
            }
            server = next;
            tried |= UpstreamGroup.bit(next);
            attempts++;
            attemptStartMillis = System.currentTimeMillis();
            serversTried = serversTried == null ? next.authority() : serversTried + "," + next.authority();
        }
        next.begin();
        next.pool().acquire(new Acquisition(next, false));
        return true;
    }

    /**
     * Under the lock, before a retry: whether the request may go to another server after
     * {@code condition}. Only a request nothing of whose answer reached the client, and, once
     * sent, only an idempotent one without a body (its bytes were streamed, not kept).
     */
    private boolean mayRetry(RetryOn condition, boolean sent) {
        if (phase.isOver() || phase.responseStarted() || interimForwarded) {
            return false;
        }
        if (sent && !resendable()) {
            return false;
        }
        return group.mayRetry(condition, attempts, tried);
    }

    /**
     * Under the lock: the request may be sent once more after it went out. Idempotent, and
     * nothing but its head was sent: no body bytes, and no chunked framing either (even an empty
     * chunked body's last chunk left separately and would be missing from a second copy).
     */
    private boolean resendable() {
        return bodyReceived && requestBytes == 0 && !request.chunked() && request.method().isIdempotent();
    }

    /**
     * Under the lock, before a retry: lets the current upstream connection go. It is unbound here,
     * and the exchange no longer names it, so any event it still reports (a late head, a close, a
     * deadline) is ignored; the caller releases it outside the lock.
     */
    private Connection<?> abandonUpstream() {
        Connection<?> left = upstream;
        if (upstreamState != null) {
            upstreamState.unbind(this);
        }
        upstream = null;
        upstreamState = null;
        server = null;
        phase = phase.retry();
        return left;
    }

    /** After {@link #mayRetry} allowed it: the attempt on {@code failed} is over, the next one starts. */
    private void retryElsewhere(UpstreamServer failed, Connection<?> connection, ProxyError reason, String detail) {
        release(connection, failed, false);
        failed.end();
        group.retried();
        LOG.info("{} {} route={} retried after {} from {}: {}", request.methodName(), request.path(), route.name(),
                reason.cause, failed.authority(), detail);
        if (!attempt()) {
            fail(reason, detail + "; no other server to try");
        }
    }

    // ------------------------------------------------------------------ request

    private void onUpstreamReady(Connection<?> connection, UpstreamServer from, boolean fresh) {
        assert owned() : Thread.currentThread().getName() + " is not " + loop;
        assert EventLoops.checkOwner(services.loops().of(connection) == loop) : "upstream connection on " + services.loops().of(connection) + ", exchange on " + loop;
        if (!fresh && !request.method().isIdempotent() && UpstreamConnection.reusedButGone(connection)) {
            // A request that must not be sent twice, and its pooled connection was reset while idle
            // (the server died a moment ago): nothing is sent yet, so a new connection is asked
            // for instead, whose failure sends the request to the next server.
            from.pool().discard(connection);
            from.pool().acquireFresh(new Acquisition(from, true));
            return;
        }
        boolean resumeClient = false;
        boolean waitForRoom = false;
        boolean unused;
        UpstreamConnection state = UpstreamConnection.of(connection);
        synchronized (this) {
            unused = phase != Phase.CONNECTING || server != from;
            if (!unused) {
                upstream = connection;
                upstreamState = state;
                upstreamReused = upstreamState.bind(this) && !fresh;
                phase = phase.bound(bodyReceived);
                if (request.expectContinue() && !continueSent && !bodyReceived) {
                    // Before the request leaves: the upstream's answer must not overtake the 100.
                    continueSent = true;
                    client.write(Buffers.wrap(memory, CONTINUE_100));
                }
                Buffer out = upstreamHead.duplicate();
                if (held != null) {
                    out = OneWrite.of(memory, out, held);
                    held = null;
                }
                services.writeQueues().write(connection, out);
                if (bodyReceived) {
                    markSent();
                } else {
                    services.deadlines().arm(upstreamState, generation.stallTimeoutMillis());
                }
                if (clientPaused) {
                    if (services.writeQueues().hasRoom(connection)) {
                        clientPaused = false;
                        resumeClient = true;
                    } else {
                        waitForRoom = true;
                    }
                }
            }
        }
        if (unused) {
            // The exchange ended while the connection was on its way: nothing was written on it,
            // but it is closed rather than pooled, as after any failure.
            from.pool().discard(connection);
            return;
        }
        if (waitForRoom) {
            services.writeQueues().whenRoom(connection, new ResumeClient());
        }
        if (resumeClient) {
            client.resumeReads();
        }
        if (!connection.isOpen() && state.unbind(this)) {
            // The connection closed (the upstream reset it while it was idle in the pool, or died)
            // before this exchange was bound to it, so its close event reached nobody; unbinding
            // first makes sure the event and this check never both report it.
            onUpstreamClosed(state);
        }
    }

    private void markSent() {
        sentNanos = System.nanoTime();
        if (!phase.responseStarted()) {
            services.deadlines().arm(upstreamState, group.responseTimeoutMillis());
        }
    }

    /**
     * Why no connection came, told by what failed and when, never by an exception's text: the
     * pool's wait timed out (a full pool, or a connect still pending), or the connect failed.
     * Grizzly's pool reports a connect that outlived connect-timeout as the same ConnectException
     * type as a refused one, so the time it took tells them apart.
     */
    private void onAcquireFailed(Throwable error, long waitedNanos, UpstreamServer from, boolean fresh) {
        ProxyError reason;
        if (UpstreamPool.exhausted(error)) {
            // Waited for a connection to close on another loop: the server's budget was spent.
            reason = ProxyError.POOL_EXHAUSTED;
        } else if (error instanceof TimeoutException) {
            // A connect of its own (the retry) never waits for the pool.
            reason = !fresh && from.pool().isAtCapacity() ? ProxyError.POOL_EXHAUSTED : ProxyError.CONNECT_TIMEOUT;
        } else if (error == null || waitedNanos >= java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(from.pool().connectTimeoutMillis())) {
            reason = ProxyError.CONNECT_TIMEOUT;
        } else {
            reason = ProxyError.CONNECT_FAILED;
        }
        String detail = error == null ? "connect timed out" : String.valueOf(error.getMessage());
        boolean retry;
        long started;
        synchronized (this) {
            if (phase != Phase.CONNECTING || server != from) {
                // Not the attempt in progress: the exchange ended, or already moved on to another
                // server after this one's failure was first reported.
                return;
            }
            started = attemptStartMillis;
            // Nothing was sent: any method may go to the next server.
            retry = mayRetry(RetryOn.CONNECT_FAILURE, false);
            if (retry) {
                server = null;
            }
        }
        if (reason != ProxyError.POOL_EXHAUSTED) {
            from.failed(reason.cause, started);
        }
        if (retry) {
            retryElsewhere(from, null, reason, detail);
        } else {
            fail(reason, detail);
        }
    }

    /**
     * A piece of the request body from the client (a slice of its read buffer); {@code last}
     * marks the end. Returns false when the client's reads must stop until {@link
     * ClientSide#resumeReads()}: the upstream cannot take more yet.
     */
    public boolean onRequestBody(Buffer piece, boolean last) {
        assert owned() : Thread.currentThread().getName() + " is not " + loop;
        Connection<?> waitFor = null;
        boolean tooLarge;
        synchronized (this) {
            if (phase.isOver()) {
                Pieces.drop(piece);
                return true;
            }
            requestBytes += piece.remaining();
            tooLarge = generation.exceedsBodyLimit(requestBytes);
            if (!tooLarge) {
                bodyReceived |= last;
                Buffer out = request.chunked() ? ChunkFramer.frame(memory, piece, last) : piece;
                if (phase == Phase.CONNECTING) {
                    if (out != null) {
                        if (held == null) {
                            held = CompositeBuffer.newBuffer(memory);
                            // Let go of as one write (OneWrite): its pieces with it.
                            held.allowBufferDispose(true);
                            held.allowInternalBuffersDispose(true);
                        }
                        held.append(out);
                    }
                    if (!last && held != null && held.remaining() > MAX_HELD_BEFORE_CONNECTED) {
                        clientPaused = true;
                        return false;
                    }
                    return true;
                }
                if (out != null && out.hasRemaining()) {
                    services.writeQueues().write(upstream, out);
                } else {
                    Pieces.drop(out);
                }
                if (last) {
                    phase = phase.requestSent();
                    markSent();
                } else {
                    services.deadlines().arm(upstreamState, generation.stallTimeoutMillis());
                    if (!services.writeQueues().hasRoom(upstream)) {
                        clientPaused = true;
                        waitFor = upstream;
                    }
                }
            }
        }
        if (tooLarge) {
            Pieces.drop(piece);
            fail(ProxyError.BODY_TOO_LARGE, "request body over " + generation.maxBodySize() + " bytes");
            return true;
        }
        if (waitFor != null) {
            services.writeQueues().whenRoom(waitFor, new ResumeClient());
            return false;
        }
        return true;
    }

    /** The request body broke its chunked framing midway. */
    public void onRequestBodyBroken(Violation violation) {
        fail(ProxyError.BROKEN_BODY, violation.text());
    }

    /** After a 101, bytes from the client for the upstream. False: stop reading until there is room. */
    public boolean onClientTunnelBytes(Buffer bytes) {
        assert owned() : Thread.currentThread().getName() + " is not " + loop;
        Connection<?> waitFor = null;
        synchronized (this) {
            if (phase != Phase.TUNNELLING) {
                Pieces.drop(bytes);
                return true;
            }
            requestBytes += bytes.remaining();
            services.writeQueues().write(upstream, bytes);
            services.deadlines().arm(upstreamState, generation.stallTimeoutMillis());
            if (!services.writeQueues().hasRoom(upstream)) {
                clientPaused = true;
                waitFor = upstream;
            }
        }
        if (waitFor != null) {
            services.writeQueues().whenRoom(waitFor, new ResumeClient());
            return false;
        }
        return true;
    }

    /** After a 101, the client sends no more (a half-close): the upstream is told, and may still answer. */
    public void onClientInputEnded() {
        Connection<?> to;
        synchronized (this) {
            to = phase == Phase.TUNNELLING ? upstream : null;
        }
        if (to != null) {
            HalfClose.passOn(client.connection(), to);
        }
    }

    // ----------------------------------------------------------------- response

    @Override
    public boolean requestWasHead() {
        return request.isHead();
    }

    @Override
    public boolean upgradeRequested() {
        return request.upgrade();
    }

    /**
     * RFC 9110 §15.2: a proxy forwards interim responses to an HTTP/1.1 client (HAProxy does,
     * nginx drops them), except 100 Continue, which Kodiak answers itself when the upstream is
     * ready and which would otherwise come twice.
     */
    @Override
    public boolean onInterimResponse(UpstreamConnection from, ResponseHead head) {
        assert owned() : Thread.currentThread().getName() + " is not " + loop;
        synchronized (this) {
            if (phase.isOver() || phase.responseStarted() || from != upstreamState) {
                return true;
            }
            // The response timeout keeps running: interim responses do not extend it, or an
            // upstream could hold the exchange for ever with one 1xx after another.
            if (head.status() == 100 || !request.http11()) {
                return true;
            }
            interimForwarded = true;
            client.write(ClientResponseHead.interim(head, memory));
            if (services.writeQueues().hasRoom(client.connection())) {
                return true;
            }
        }
        // A client that does not read its 1xx holds the upstream's reads, as for a body: a flood
        // of them would otherwise queue without bound.
        resumeUpstreamWhenRoom();
        return false;
    }

    @Override
    public boolean onResponseHead(UpstreamConnection from, ResponseHead head, Buffer firstPiece) {
        assert owned() : Thread.currentThread().getName() + " is not " + loop;
        if (retriedOnStatus(from, head)) {
            Pieces.drop(firstPiece);
            return true;
        }
        boolean tunnel;
        boolean room;
        synchronized (this) {
            if (phase.isOver() || from != upstreamState) {
                Pieces.drop(firstPiece);
                return true;
            }
            Buffer out = clientHead(head);
            tunnel = phase == Phase.TUNNELLING;
            client.write(firstPiece == null ? out : OneWrite.of(memory, out, framedPiece(firstPiece)));
            services.deadlines().arm(upstreamState, generation.stallTimeoutMillis());
            room = tunnel || services.writeQueues().hasRoom(client.connection());
        }
        if (tunnel) {
            client.switchToTunnel(this);
        } else if (!room) {
            resumeUpstreamWhenRoom();
            return false;
        }
        return true;
    }

    /**
     * The server's final response head has come. A 502, 503 or 504 of its own counts against the
     * server's health, and when the group retries on that status (and the request may be
     * retried) the response is dropped with its connection and the request goes to the next
     * server; true then, and also for an event that no longer concerns the exchange (it ended, or
     * left that connection). Any other status is a success for the server's health.
     */
    private boolean retriedOnStatus(UpstreamConnection source, ResponseHead head) {
        RetryOn condition = RetryOn.ofStatus(head.status());
        UpstreamServer from;
        Connection<?> connection = null;
        boolean retry = false;
        long started;
        synchronized (this) {
            from = server;
            if (phase.isOver() || from == null || source != upstreamState) {
                return true;
            }
            started = attemptStartMillis;
            if (condition != null && mayRetry(condition, true)) {
                retry = true;
                connection = abandonUpstream();
            }
        }
        if (condition == null) {
            from.succeeded(started);
            return false;
        }
        from.failed("status " + head.status(), started);
        if (retry) {
            retryElsewhere(from, connection, ProxyError.RETRY_EXHAUSTED, "status " + head.status());
        }
        return retry;
    }

    /**
     * Under the lock: the client's head for {@code head}, and the phase it leads to; the caller
     * writes it (with the first body bytes when they came along).
     */
    private Buffer clientHead(ResponseHead head) {
        firstByteNanos = System.nanoTime();
        status = head.status();
        ClientResponseHead.Persistence persistence;
        boolean tunnel = status == 101;
        if (tunnel) {
            framing = ClientFraming.AS_RECEIVED;
            persistence = ClientResponseHead.Persistence.UPGRADE;
            phase = phase.switched();
        } else {
            boolean body = head.hasBody(request.isHead());
            framing = !body || !head.isCloseDelimited() && !head.isChunked() ? ClientFraming.AS_RECEIVED
                    : request.http11() ? ClientFraming.CHUNKED : ClientFraming.CLOSE;
            keepClient = framing != ClientFraming.CLOSE && request.keepAlive() && client.mayKeepAlive()
                    && !services.drain().isDraining();
            persistence = !keepClient ? ClientResponseHead.Persistence.CLOSE
                    : request.http11() ? ClientResponseHead.Persistence.NOTHING : ClientResponseHead.Persistence.KEEP_ALIVE;
            phase = phase.headForwarded();
        }
        return ClientResponseHead.build(head, framing, persistence, route.responseHeaders(), request, memory);
    }

    /** Under the lock: one piece of the response body, counted and framed for the client. */
    private Buffer framedPiece(Buffer piece) {
        responseBytes += piece.remaining();
        return framing == ClientFraming.CHUNKED ? ChunkFramer.frame(memory, piece, false) : piece;
    }

    @Override
    public boolean onResponseBody(UpstreamConnection from, Buffer piece) {
        assert owned() : Thread.currentThread().getName() + " is not " + loop;
        synchronized (this) {
            if (phase.isOver() || from != upstreamState) {
                Pieces.drop(piece);
                return true;
            }
            client.write(framedPiece(piece));
            // Progress: the next piece must come within idle-timeout, also while the client is too
            // slow to take this one (upstream reads stay paused and the deadline runs out).
            services.deadlines().arm(upstreamState, generation.stallTimeoutMillis());
            if (services.writeQueues().hasRoom(client.connection())) {
                return true;
            }
        }
        resumeUpstreamWhenRoom();
        return false;
    }

    @Override
    public boolean onTunnelBytes(UpstreamConnection from, Buffer bytes) {
        return onResponseBody(from, bytes);
    }

    @Override
    public void onTunnelInputEnded(UpstreamConnection from) {
        Connection<?> source;
        synchronized (this) {
            source = phase == Phase.TUNNELLING && from == upstreamState ? upstream : null;
        }
        if (source != null) {
            HalfClose.passOn(source, client.connection());
        }
    }

    /**
     * The last bytes of the response and the transition to COMPLETE are one step under the lock:
     * a client that reads the whole response and closes at once must find the exchange complete,
     * not in the middle of its response.
     */
    @Override
    public void onResponseEnd(UpstreamConnection source, ResponseHead head, Buffer lastPiece, boolean reusable) {
        assert owned() : Thread.currentThread().getName() + " is not " + loop;
        if (head != null && retriedOnStatus(source, head)) {
            Pieces.drop(lastPiece);
            return;
        }
        Connection<?> connection;
        UpstreamServer from;
        boolean reuse;
        boolean keep;
        synchronized (this) {
            if (phase.isOver() || source != upstreamState) {
                Pieces.drop(lastPiece);
                return;
            }
            // Head, last piece and last chunk leave in one write.
            Buffer out = head == null ? null : clientHead(head);
            if (lastPiece != null) {
                Buffer piece = framedPiece(lastPiece);
                out = out == null ? piece : OneWrite.of(memory, out, piece);
            }
            if (framing == ClientFraming.CHUNKED) {
                Buffer end = ChunkFramer.frame(memory, null, true);
                out = out == null ? end : OneWrite.of(memory, out, end);
            }
            if (out != null) {
                client.write(out);
            }
            phase = phase.completed();
            connection = upstream;
            from = server;
            reuse = reusable && bodyReceived && group.settings().pool().persistentConnections();
            keep = keepClient;
            services.deadlines().disarm(upstreamState);
        }
        release(connection, from, reuse);
        end(keep);
    }

    // ----------------------------------------------------------------- failures

    /**
     * The single failure path: the client gets Kodiak's answer if nothing of the upstream's
     * response was written yet, otherwise its connection is closed (a half-sent response cannot
     * be corrected). The upstream connection is never reused after an error.
     */
    void fail(ProxyError error, String detail) {
        assert owned() : Thread.currentThread().getName() + " is not " + loop;
        Connection<?> connection;
        UpstreamServer from;
        boolean answer;
        boolean keep;
        synchronized (this) {
            if (phase.isOver()) {
                return;
            }
            answer = !phase.responseStarted();
            phase = Phase.FAILED;
            connection = upstream;
            from = server;
            // A client still to send its body after "Expect: 100-continue" may never send it: its
            // next request would be read as this body, so the connection closes.
            keep = answer && !error.closeClient && request.keepAlive() && client.mayKeepAlive()
                    && !services.drain().isDraining() && (bodyReceived || !request.expectContinue() || continueSent);
            if (answer) {
                status = error.status;
            }
        }
        // The answer and the WARN line name the same id.
        long requestNumber = requestNumber();
        // Counted before the answer leaves: a client that reads it and then asks /metrics finds it.
        services.onError(error);
        if (answer) {
            // Outside the lock: once FAILED, nothing else writes to the client.
            client.write(LocalAnswer.of(error, null, request.isHead(), !keep ? LocalAnswer.Persistence.CLOSE
                    : request.http11() ? LocalAnswer.Persistence.NOTHING : LocalAnswer.Persistence.KEEP_ALIVE,
                    requestNumber, 0, memory));
        }
        release(connection, from, false);
        warnFailed(error, requestNumber, detail);
        end(keep);
    }

    /** The request's id when it took one (the access log's), else one taken now. */
    private long requestNumber() {
        return request.requestNumber() != 0 ? request.requestNumber() : RequestIds.next();
    }

    /** The one WARN line of a failed exchange, in kodiak.log. */
    private void warnFailed(ProxyError error, long requestNumber, String detail) {
        LOG.warn("{} {} route={} upstream={} cause={} request_id={}: {}", request.methodName(), request.path(), route.name(),
                serversTried == null ? route.upstreamUrl() : serversTried, error.cause, RequestIds.format(requestNumber), detail);
    }

    /**
     * The client connection closed: stop everything, and never pool the upstream connection
     * mid-exchange. Closed by the client (499, as nginx logs it), or by the stop once its grace
     * period ran out ({@link ProxyError#STOPPED}: the answer's status if it had begun, else 503).
     */
    public void onClientClosed() {
        if (!onLoop(this::onClientClosed)) {
            return;
        }
        Connection<?> connection;
        UpstreamServer from;
        boolean tunnel;
        boolean stopped = services.drain().isExpired();
        synchronized (this) {
            if (phase.isOver()) {
                return;
            }
            tunnel = phase == Phase.TUNNELLING;
            if (!tunnel && stopped && !phase.responseStarted()) {
                status = ProxyError.STOPPED.status;
            } else if (!tunnel && !stopped) {
                status = CLIENT_CLOSED_STATUS;
            }
            phase = tunnel ? phase.completed() : Phase.FAILED;
            connection = upstream;
            from = server;
        }
        release(connection, from, false);
        if (!tunnel) {
            services.onError(stopped ? ProxyError.STOPPED : null);
            if (stopped) {
                warnFailed(ProxyError.STOPPED, requestNumber(), ProxyError.STOPPED.text);
            }
        }
        end(false);
    }

    @Override
    public void onInvalidResponse(UpstreamConnection source, Violation violation) {
        assert owned() : Thread.currentThread().getName() + " is not " + loop;
        UpstreamServer from;
        long started;
        synchronized (this) {
            if (phase.isOver() || source != upstreamState) {
                return;
            }
            from = server;
            started = attemptStartMillis;
        }
        if (from != null) {
            from.failed("an invalid response", started);
        }
        fail(ProxyError.INVALID_RESPONSE, "invalid response (" + violation.text() + ")");
    }

    @Override
    public void onUpstreamClosed(UpstreamConnection source) {
        if (!onLoop(() -> onUpstreamClosed(source))) {
            return;
        }
        if (services.drain().isExpired() && !phase.isOver()) {
            // The stop's grace period ran out and it closes every connection, on both sides of the
            // one transport, in no set order: the exchange is the stop's doing, as when its client's
            // connection closes first (onClientClosed), not a failing upstream's to answer 502 for.
            client.connection().closeSilently();
            return;
        }
        if (tlsHandshakeFailed(source)) {
            return;
        }
        Connection<?> stale = null;
        Connection<?> tunnel = null;
        Connection<?> reset = null;
        UpstreamServer from;
        boolean beforeResponse;
        boolean headBegun;
        long started;
        synchronized (this) {
            if (phase.isOver() || source != upstreamState) {
                return;
            }
            from = server;
            started = attemptStartMillis;
            beforeResponse = !phase.responseStarted();
            headBegun = beforeResponse && source.headBegun();
            if (phase == Phase.TUNNELLING) {
                phase = phase.completed();
                tunnel = upstream;
            } else if (!phase.responseStarted() && phase != Phase.CONNECTING && !retried && upstreamReused
                    && !interimForwarded && !headBegun && resendable()) {
                // The upstream closed an idle pooled connection as we reused it; nothing was answered,
                // so an idempotent, bodiless request is safe to send once more, on a brand-new
                // connection to the same server (an idle close is no sign of ill health).
                retried = true;
                stale = abandonUpstream();
                // The same server, on a new connection.
                server = from;
            } else if (phase != Phase.CONNECTING && mayRetry(RetryOn.RESET, true)) {
                reset = abandonUpstream();
            }
        }
        if (tunnel != null) {
            release(tunnel, from, false);
            end(false);
        } else if (stale != null) {
            release(stale, from, false);
            from.pool().acquireFresh(new Acquisition(from, true));
        } else {
            String when = headBegun ? "closed in the middle of the response head"
                    : beforeResponse ? "closed before any response byte" : "closed in the middle of the response body";
            if (beforeResponse && from != null) {
                from.failed(headBegun ? "a reset in the middle of the response head" : "a reset before any response byte", started);
            }
            if (reset != null) {
                retryElsewhere(from, reset, ProxyError.UPSTREAM_CLOSED, when);
            } else {
                fail(ProxyError.UPSTREAM_CLOSED, when);
            }
        }
    }

    /**
     * The upstream connection closed because its TLS handshake failed: nothing of the request
     * reached the server, so, as after a failed connect, any method may go to the next server;
     * else 502 naming the handshake's cause. False when the close had another reason.
     */
    private boolean tlsHandshakeFailed(UpstreamConnection source) {
        UpstreamServer from;
        Throwable cause;
        Connection<?> connection = null;
        boolean retry;
        long started;
        synchronized (this) {
            cause = phase.isOver() || source != upstreamState ? null : source.tlsFailure();
            if (cause == null || phase.responseStarted() || phase == Phase.CONNECTING) {
                return false;
            }
            from = server;
            started = attemptStartMillis;
            // Any method, but only with nothing beyond the head to send again: body bytes already
            // went into this connection's queue and are gone with it.
            retry = bodyReceived && requestBytes == 0 && !request.chunked() && mayRetry(RetryOn.CONNECT_FAILURE, false);
            if (retry) {
                connection = abandonUpstream();
            }
        }
        String detail = "TLS handshake with " + from.authority() + " failed: " + describe(cause);
        from.failed("a failed TLS handshake", started);
        if (retry) {
            retryElsewhere(from, connection, ProxyError.UPSTREAM_TLS, detail);
        } else {
            fail(ProxyError.UPSTREAM_TLS, detail);
        }
        return true;
    }

    /** The innermost message: the JDK puts the reason (an untrusted chain, no name matching) at the root. */
    private static String describe(Throwable cause) {
        Throwable root = cause;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return String.valueOf(root.getMessage());
    }

    /**
     * No progress before the deadline: what that means depends on where the exchange stands.
     * Still receiving the request body: the client stalled (408). Waiting for the response:
     * response-timeout (504). Streaming the response: the client stopped reading or the upstream
     * stopped sending; the response has started, so the client connection is closed. A tunnel
     * with no traffic either way for idle-timeout is closed.
     */
    @Override
    public void onDeadline(UpstreamConnection source) {
        if (!onLoop(() -> onDeadline(source))) {
            return;
        }
        ProxyError reason;
        UpstreamServer from;
        Connection<?> timedOut = null;
        long started;
        synchronized (this) {
            if (source != upstreamState) {
                return;
            }
            from = server;
            started = attemptStartMillis;
            reason = switch (phase) {
                // Reads from the client stop while the upstream has no room: then it is the
                // upstream that stalled, not the client.
                case SENDING -> clientPaused ? ProxyError.UPSTREAM_STALLED : ProxyError.REQUEST_BODY_STALLED;
                case AWAITING -> ProxyError.RESPONSE_TIMEOUT;
                case EARLY_RESPONSE, RESPONDING -> ProxyError.TRANSFER_STALLED;
                case TUNNELLING -> ProxyError.TUNNEL_IDLE;
                default -> null;
            };
            if (reason == ProxyError.RESPONSE_TIMEOUT && mayRetry(RetryOn.TIMEOUT, true)) {
                timedOut = abandonUpstream();
            }
        }
        if (reason == null) {
            return;
        }
        long limit = reason == ProxyError.RESPONSE_TIMEOUT ? group.responseTimeoutMillis() : generation.stallTimeoutMillis();
        String detail = "no progress within " + limit + " ms";
        if (reason == ProxyError.RESPONSE_TIMEOUT && from != null) {
            from.failed("no response within response-timeout", started);
        }
        if (timedOut != null) {
            retryElsewhere(from, timedOut, reason, detail);
        } else {
            fail(reason, detail);
        }
    }

    // ------------------------------------------------------------------ the end

    /** Returns the upstream connection to {@code from}'s pool when reusable, else closes it. */
    private void release(Connection<?> connection, UpstreamServer from, boolean reusable) {
        if (connection == null) {
            return;
        }
        UpstreamConnection state = UpstreamConnection.of(connection);
        services.deadlines().disarm(state);
        state.unbind(this);
        if (reusable) {
            from.pool().release(connection);
        } else {
            from.pool().discard(connection);
        }
    }

    private void end(boolean keepAlive) {
        UpstreamServer last;
        synchronized (this) {
            last = server;
            server = null;
        }
        if (last != null) {
            last.end();
        }
        client.exchangeEnded(this, keepAlive);
        // Recorded before the drain counts the exchange out: a stop waits for it, so the last
        // exchanges' access-log lines and metrics are never lost to a stop.
        record();
        services.drain().exchangeEnded();
    }

    /** Access log line and metrics, once per exchange. */
    private void record() {
        long now = System.nanoTime();
        long upstreamNanos;
        int finalStatus;
        long in;
        long out;
        synchronized (this) {
            upstreamNanos = sentNanos < 0 ? -1 : (firstByteNanos < 0 ? now : firstByteNanos) - sentNanos;
            finalStatus = status;
            in = requestBytes;
            out = responseBytes;
        }
        String servers;
        synchronized (this) {
            servers = serversTried;
        }
        services.recorder().exchange(route, servers, finalStatus, in, out, upstreamNanos, now - startNanos, request,
                generation);
    }

    // ---------------------------------------------------------------- callbacks

    /**
     * True on the exchange's loop: the caller goes on. Elsewhere (the timer, a close asked by
     * another thread, a connect completed on a selector while the loop is a worker lane), posts
     * {@code again} to the loop and returns false.
     */
    /** For assertions: the caller runs on the exchange's loop, as everything on the forwarding path must. */
    private boolean owned() {
        return EventLoops.checkOwner(loop == null || loop.inLoop() || services.drain().isExpired());
    }

    private boolean onLoop(Runnable again) {
        // Past the stop's grace period the loops are being shut down and may run nothing more:
        // the stop's own thread ends what is left (the exchange's monitor still orders it).
        if (loop == null || loop.inLoop() || services.drain().isExpired()) {
            return true;
        }
        loop.post(again);
        return false;
    }

    /**
     * One request for a connection, settled on the exchange's loop. Grizzly 2.3.35's pool can
     * report a failed connect twice (to the connect's handler and again to its list of waiters),
     * so only the first outcome counts.
     */
    private final class Acquisition implements CompletionHandler<Connection> {
        private final UpstreamServer from;
        private final boolean fresh;
        private final long askedNanos = System.nanoTime();
        /** Only the loop reads or sets it. */
        private boolean settled;

        Acquisition(UpstreamServer from, boolean fresh) {
            this.from = from;
            this.fresh = fresh;
        }

        @Override
        public void completed(Connection connection) {
            if (!onLoop(() -> completed(connection))) {
                return;
            }
            if (!settled) {
                settled = true;
                onUpstreamReady(connection, from, fresh);
            } else {
                // Reported after a failure: the exchange did not wait for it.
                from.pool().discard(connection);
            }
        }

        @Override
        public void failed(Throwable error) {
            if (!onLoop(() -> failed(error))) {
                return;
            }
            if (!settled) {
                settled = true;
                onAcquireFailed(error, System.nanoTime() - askedNanos, from, fresh);
            }
        }

        @Override
        public void cancelled() {
            failed(null);
        }

        @Override
        public void updated(Connection result) {
        }
    }

    /** The upstream has room again: the client's reads, stopped for it, go on. */
    private final class ResumeClient implements WriteHandler {
        @Override
        public void onWritePossible() {
            boolean resume;
            synchronized (Exchange.this) {
                resume = clientPaused && !phase.isOver();
                clientPaused = false;
            }
            if (resume) {
                client.resumeReads();
            }
        }

        @Override
        public void onError(Throwable error) {
            // The upstream connection failed; its close event ends the exchange.
        }
    }

    /**
     * Upstream reads resume once the client's queue has room. Asked once per pause: one read can
     * bring several 1xx heads, or interim heads and the final one, each finding the queue full.
     */
    private void resumeUpstreamWhenRoom() {
        synchronized (this) {
            if (resumeAwaited) {
                return;
            }
            resumeAwaited = true;
        }
        services.writeQueues().whenRoom(client.connection(), new ResumeUpstream());
    }

    /** The client has room again: the upstream's reads, stopped for it, go on. */
    private final class ResumeUpstream implements WriteHandler {
        @Override
        public void onWritePossible() {
            UpstreamConnection state;
            synchronized (Exchange.this) {
                resumeAwaited = false;
                state = phase.isOver() ? null : upstreamState;
            }
            if (state != null) {
                state.resumeReads();
            }
        }

        @Override
        public void onError(Throwable error) {
            // The client connection failed; its close event ends the exchange.
        }
    }
}
