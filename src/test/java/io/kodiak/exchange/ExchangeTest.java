package io.kodiak.exchange;

import io.kodiak.Kodiak;
import io.kodiak.http.HeadReader;
import io.kodiak.http.HeadScanner;
import io.kodiak.http.RequestHead;
import io.kodiak.http.ResponseHead;
import io.kodiak.http.Violation;
import io.kodiak.loop.EventLoop;
import io.kodiak.routing.HeaderRules;
import io.kodiak.routing.HeaderVariable;
import io.kodiak.routing.Rewrites;
import io.kodiak.routing.Route;
import io.kodiak.support.Await;
import io.kodiak.support.OnLoop;
import io.kodiak.support.ProxyHarness;
import io.kodiak.tls.TlsObserver;
import io.kodiak.upstream.ResponseListener;
import io.kodiak.upstream.UpstreamPool;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.WriteHandler;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.MemoryManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The exchange alone, between a fake client stream and fake upstream streams: every phase it goes
 * through, a failure in each, retry decisions, back-pressure both ways and the late events of an
 * abandoned attempt. The pools and connections are real (a connection is handed over only after
 * a real connect to a listening socket, which never reads); what goes over them is the fakes'
 * record. Every step runs on the exchange's loop, as on the forwarding path.
 */
class ExchangeTest {
    private static final long RESPONSE_TIMEOUT = 7_000;

    private final List<ServerSocket> sockets = new ArrayList<>();
    private final BlockingQueue<FakeUpstream> bound = new LinkedBlockingQueue<>();
    /** The next fake stream claims its connection carried a request before (a pooled one). */
    private volatile boolean nextReused;
    private Kodiak kodiak;
    private EventLoop loop;

    @AfterEach
    void stop() throws IOException {
        if (kodiak != null) {
            kodiak.stop();
        }
        for (ServerSocket socket : sockets) {
            socket.close();
        }
    }

    // ------------------------------------------------------------------ the phases

    @Test
    void aGetGoesThroughEveryPhaseOfASuccessfulExchange() throws Exception {
        start("proxy.routes = [ { prefix = \"/\", upstream = \"" + listening() + "\" } ]");
        FakeClient client = new FakeClient();
        Exchange exchange = begin(client, "GET /a HTTP/1.1\r\nHost: x\r\n\r\n");
        assertEquals(Phase.CONNECTING, onLoop(exchange::phase));
        onLoop(() -> exchange.start());
        FakeUpstream upstream = nextBound();

        assertEquals(List.of("request GET /a, end"), onLoop(() -> List.copyOf(upstream.sent)));
        assertEquals(RESPONSE_TIMEOUT, upstream.deadline, "response-timeout runs once the request is sent");
        assertEquals(Phase.AWAITING, onLoop(exchange::phase));

        assertTrue(onLoop(() -> upstream.listener.onResponseHead(null, response("200 OK", "Content-Length: 5"), text("hel"))));
        assertEquals(Phase.RESPONDING, onLoop(exchange::phase));
        assertTrue(onLoop(() -> upstream.listener.onResponseBody(null, text("lo"))));
        onLoop(() -> upstream.listener.onResponseEnd(null, null, null, true));

        assertEquals(Phase.COMPLETE, onLoop(exchange::phase));
        assertEquals(List.of("head 200 hel", "body lo", "body, end", "ended keep"), onLoop(() -> List.copyOf(client.events)));
        assertEquals(Boolean.TRUE, upstream.finished, "a whole response lets the connection go back to its pool");
    }

    @Test
    void aBodyIsHeldWhileConnectingThenStreamsWithBackPressureBothWays() throws Exception {
        start("proxy.routes = [ { prefix = \"/\", upstream = \"" + listening() + "\" } ]");
        FakeClient client = new FakeClient();
        Exchange exchange = begin(client, "POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\n\r\n");
        assertTrue(onLoop(() -> exchange.onRequestBody(text("abc"), false)), "held: nothing to wait for yet");
        onLoop(() -> exchange.start());
        FakeUpstream upstream = nextBound();
        assertEquals(List.of("request POST /p abc"), onLoop(() -> List.copyOf(upstream.sent)), "the head and the held body in one write");
        assertEquals(Phase.SENDING, onLoop(exchange::phase));

        // The upstream takes no more: the client's reads stop until it does.
        upstream.room.free = false;
        assertFalse(onLoop(() -> exchange.onRequestBody(text("de"), false)));
        assertNotNull(upstream.room.waiting);
        assertEquals(0, client.resumes);
        onLoop(() -> upstream.room.again());
        assertEquals(1, client.resumes);

        assertTrue(onLoop(() -> exchange.onRequestBody(text("f"), true)));
        assertEquals(Phase.AWAITING, onLoop(exchange::phase));
        assertEquals(List.of("request POST /p abc", "body de", "body f, end"), onLoop(() -> List.copyOf(upstream.sent)));

        // The client takes no more: the upstream's reads stop until it does.
        client.room.free = false;
        assertFalse(onLoop(() -> upstream.listener.onResponseHead(null, response("200 OK", "Content-Length: 2"), null)));
        assertEquals(0, upstream.resumes);
        onLoop(() -> client.room.again());
        assertEquals(1, upstream.resumes);
    }

    @Test
    void anEarlyAnswerEndsTheExchangeDropsTheRestOfTheBodyAndClosesTheUpstreamConnection() throws Exception {
        start("proxy.routes = [ { prefix = \"/\", upstream = \"" + listening() + "\" } ]");
        FakeClient client = new FakeClient();
        Exchange exchange = begin(client, "POST /big HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n");
        onLoop(() -> exchange.start());
        FakeUpstream upstream = nextBound();
        onLoop(() -> exchange.onRequestBody(text("abc"), false));

        onLoop(() -> upstream.listener.onResponseEnd(null, response("413 Too Large", "Content-Length: 0"), null, true));
        assertEquals(Phase.COMPLETE, onLoop(exchange::phase));
        assertEquals(Boolean.FALSE, upstream.finished, "the upstream still expects the rest of the body: not reusable");
        assertTrue(onLoop(() -> exchange.onRequestBody(text("rest"), true)));
        assertEquals(List.of("request POST /big", "body abc"), onLoop(() -> List.copyOf(upstream.sent)));
        assertEquals(List.of("head 413, end", "ended keep"), onLoop(() -> List.copyOf(client.events)));
    }

    @Test
    void aTunnelRelaysBothWaysPassesHalfClosesOnAndEndsWithAClose() throws Exception {
        start("proxy.routes = [ { prefix = \"/\", upstream = \"" + listening() + "\" } ]");
        FakeClient client = new FakeClient();
        Exchange exchange = begin(client, "GET /ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n");
        onLoop(() -> exchange.start());
        FakeUpstream upstream = nextBound();
        onLoop(() -> upstream.listener.onResponseHead(null, response("101 Switching Protocols",
                "Connection: Upgrade\r\nUpgrade: websocket"), null));
        assertEquals(Phase.TUNNELLING, onLoop(exchange::phase));

        assertTrue(onLoop(() -> exchange.onClientTunnelBytes(text("hi"))));
        assertTrue(onLoop(() -> upstream.listener.onTunnelBytes(null, text("yo"))));
        onLoop(() -> exchange.onClientInputEnded());
        assertEquals(List.of("request GET /ws, end", "relay hi", "shutdown"), onLoop(() -> List.copyOf(upstream.sent)));
        onLoop(() -> upstream.listener.onTunnelInputEnded(null));
        assertEquals("close", onLoop(() -> upstream.sent.get(upstream.sent.size() - 1)),
                "both directions of the upstream side are done: it closes");
        onLoop(() -> upstream.listener.onUpstreamClosed(null));

        assertEquals(Phase.COMPLETE, onLoop(exchange::phase));
        assertEquals(List.of("head 101", "tunnel", "relay yo", "ended close"), onLoop(() -> List.copyOf(client.events)));
    }

    // ------------------------------------------------------------------ a failure in every phase

    @Test
    void aConnectThatFailsIsAnswered502() throws Exception {
        start("proxy.routes = [ { prefix = \"/\", upstream = \"http://127.0.0.1:" + refusingPort() + "/\" } ]");
        FakeClient client = new FakeClient();
        Exchange exchange = begin(client, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        onLoop(() -> exchange.start());
        Await.await(() -> loopCall(() -> exchange.phase() == Phase.FAILED), "the connect to fail");
        assertEquals(List.of("local 502 keep", "ended keep"), onLoop(() -> List.copyOf(client.events)));
        assertTrue(bound.isEmpty());
    }

    @Test
    void anUpstreamThatClosesWhileTheBodyGoesOutIsAnswered502AndTheBodyIsNotSentTwice() throws Exception {
        start("proxy.upstreams.app { servers = [\"" + listening() + "\", \"" + listening() + "\"] }\n"
                + "proxy.routes = [ { prefix = \"/\", upstream = \"http://app/\" } ]");
        FakeClient client = new FakeClient();
        Exchange exchange = begin(client, "PUT /p HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\n");
        onLoop(() -> exchange.start());
        FakeUpstream upstream = nextBound();
        onLoop(() -> exchange.onRequestBody(text("ab"), false));
        onLoop(() -> upstream.listener.onUpstreamClosed(null));

        assertEquals(Phase.FAILED, onLoop(exchange::phase));
        assertEquals("local 502", onLoop(() -> client.events.get(0)).substring(0, 9));
        assertEquals(Boolean.FALSE, upstream.finished);
        assertNull(bound.poll(), "a request whose body began to go out is not sent again");
    }

    @Test
    void noResponseWithinResponseTimeoutIsAnswered504() throws Exception {
        start("proxy.routes = [ { prefix = \"/\", upstream = \"" + listening() + "\" } ]");
        FakeClient client = new FakeClient();
        Exchange exchange = begin(client, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n");
        onLoop(() -> exchange.start());
        FakeUpstream upstream = nextBound();
        onLoop(() -> upstream.listener.onDeadline(null));
        assertEquals(Phase.FAILED, onLoop(exchange::phase));
        assertEquals(List.of("local 504 keep", "ended keep"), onLoop(() -> List.copyOf(client.events)));
    }

    @Test
    void aDeadlineSetAgainWhileItsEventWaitedIsNoTimeout() throws Exception {
        start("proxy.routes = [ { prefix = \"/\", upstream = \"" + listening() + "\" } ]");
        FakeClient client = new FakeClient();
        Exchange exchange = begin(client, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n");
        onLoop(() -> exchange.start());
        FakeUpstream upstream = nextBound();
        upstream.deadlineStillSet = true;
        onLoop(() -> upstream.listener.onDeadline(null));
        assertEquals(Phase.AWAITING, onLoop(exchange::phase));
        assertTrue(client.events.isEmpty());
    }

    @Test
    void anUpstreamThatClosesMidResponseCutsTheClientOff() throws Exception {
        start("proxy.routes = [ { prefix = \"/\", upstream = \"" + listening() + "\" } ]");
        FakeClient client = new FakeClient();
        Exchange exchange = begin(client, "GET /cut HTTP/1.1\r\nHost: x\r\n\r\n");
        onLoop(() -> exchange.start());
        FakeUpstream upstream = nextBound();
        onLoop(() -> upstream.listener.onResponseHead(null, response("200 OK", "Content-Length: 100"), text("part")));
        onLoop(() -> upstream.listener.onUpstreamClosed(null));
        assertEquals(Phase.FAILED, onLoop(exchange::phase));
        assertEquals(List.of("head 200 part", "ended close"), onLoop(() -> List.copyOf(client.events)),
                "half a response cannot be corrected: no answer of Kodiak's own, the connection closes");
    }

    @Test
    void aClientThatLeavesEndsTheExchangeAndClosesTheUpstreamConnection() throws Exception {
        start("proxy.routes = [ { prefix = \"/\", upstream = \"" + listening() + "\" } ]");
        FakeClient client = new FakeClient();
        Exchange exchange = begin(client, "GET /gone HTTP/1.1\r\nHost: x\r\n\r\n");
        onLoop(() -> exchange.start());
        FakeUpstream upstream = nextBound();
        onLoop(() -> exchange.onClientClosed());
        assertEquals(Phase.FAILED, onLoop(exchange::phase));
        assertEquals(Boolean.FALSE, upstream.finished);
        assertTrue(onLoop(() -> upstream.listener.onResponseHead(null, response("200 OK", "Content-Length: 1"), null)),
                "the abandoned attempt's late head dies there");
        assertEquals(List.of("ended close"), onLoop(() -> List.copyOf(client.events)));
    }

    // ------------------------------------------------------------------ retries

    @Test
    void a503IsRetriedOnTheNextServerAndTheFirstAttemptsLateEventsDie() throws Exception {
        start("proxy.upstreams.app { servers = [\"" + listening() + "\", \"" + listening() + "\"]\n"
                + "retry { attempts = 2, on = [\"503\"] } }\n"
                + "proxy.routes = [ { prefix = \"/\", upstream = \"http://app/\" } ]");
        FakeClient client = new FakeClient();
        Exchange exchange = begin(client, "GET /r HTTP/1.1\r\nHost: x\r\n\r\n");
        onLoop(() -> exchange.start());
        FakeUpstream first = nextBound();
        assertTrue(onLoop(() -> first.listener.onResponseHead(null, response("503 Busy", "Content-Length: 4"), null)));
        assertEquals(Boolean.FALSE, first.finished, "the dropped response's connection is closed, not pooled");
        FakeUpstream second = nextBound();
        assertFalse(second.peer().equals(first.peer()), "the retry goes to the server not tried yet");
        assertEquals(List.of("request GET /r, end"), onLoop(() -> List.copyOf(second.sent)));
        assertEquals(Phase.AWAITING, onLoop(exchange::phase));

        // The first attempt's late events reach nobody.
        assertTrue(onLoop(() -> first.listener.onResponseBody(null, text("late"))));
        onLoop(() -> first.listener.onResponseEnd(null, null, text("!"), true));
        onLoop(() -> first.listener.onUpstreamClosed(null));
        onLoop(() -> first.listener.onDeadline(null));
        assertEquals(Phase.AWAITING, onLoop(exchange::phase));
        assertTrue(client.events.isEmpty());

        onLoop(() -> second.listener.onResponseEnd(null, response("200 OK", "Content-Length: 0"), null, true));
        assertEquals(List.of("head 200, end", "ended keep"), onLoop(() -> List.copyOf(client.events)));
    }

    @Test
    void aStatusNotRetriedOnIsRelayed() throws Exception {
        start("proxy.upstreams.app { servers = [\"" + listening() + "\", \"" + listening() + "\"] }\n"
                + "proxy.routes = [ { prefix = \"/\", upstream = \"http://app/\" } ]");
        FakeClient client = new FakeClient();
        Exchange exchange = begin(client, "GET /r HTTP/1.1\r\nHost: x\r\n\r\n");
        onLoop(() -> exchange.start());
        FakeUpstream first = nextBound();
        onLoop(() -> first.listener.onResponseEnd(null, response("503 Busy", "Content-Length: 0"), null, true));
        assertEquals(List.of("head 503, end", "ended keep"), onLoop(() -> List.copyOf(client.events)),
                "503 is not in the default retry.on");
        assertNull(bound.poll());
    }

    @Test
    void aStalePooledConnectionIsRetriedOnceOnTheSameServerOnAFreshConnection() throws Exception {
        start("proxy.routes = [ { prefix = \"/\", upstream = \"" + listening() + "\" } ]");
        FakeClient client = new FakeClient();
        Exchange exchange = begin(client, "GET /s HTTP/1.1\r\nHost: x\r\n\r\n");
        nextReused = true;
        onLoop(() -> exchange.start());
        FakeUpstream stale = nextBound();
        nextReused = false;
        onLoop(() -> stale.listener.onUpstreamClosed(null));
        FakeUpstream fresh = nextBound();
        assertEquals(stale.peer(), fresh.peer());
        assertEquals(List.of("request GET /s, end"), onLoop(() -> List.copyOf(fresh.sent)));
        assertEquals(Phase.AWAITING, onLoop(exchange::phase));
        assertTrue(client.events.isEmpty(), "nothing of the stale attempt reached the client");
    }

    @Test
    void anInterimResponseBeginsTheAnswerAndForbidsARetry() throws Exception {
        start("proxy.upstreams.app { servers = [\"" + listening() + "\", \"" + listening() + "\"]\n"
                + "retry { attempts = 2, on = [\"reset\"] } }\n"
                + "proxy.routes = [ { prefix = \"/\", upstream = \"http://app/\" } ]");
        FakeClient client = new FakeClient();
        Exchange exchange = begin(client, "GET /i HTTP/1.1\r\nHost: x\r\n\r\n");
        onLoop(() -> exchange.start());
        FakeUpstream upstream = nextBound();
        assertTrue(onLoop(() -> upstream.listener.onInterimResponse(null, response("103 Early Hints", "Link: </s.css>"))));
        onLoop(() -> upstream.listener.onUpstreamClosed(null));
        assertEquals(Phase.FAILED, onLoop(exchange::phase));
        assertNull(bound.poll(), "the client has part of this answer: no other server's may follow");
        assertEquals("interim 103", onLoop(() -> client.events.get(0)));
    }

    // ------------------------------------------------------------------ the harness

    private void start(String hocon) throws IOException {
        kodiak = new Kodiak(ProxyHarness.config("proxy.upstream.response-timeout = 7s\nproxy.shutdown.grace-period = 200ms\n" + hocon), ExchangeObserver.NONE,
                TlsObserver.NONE, (deadlines, queues) -> new FakeProtocol());
        kodiak.start();
        loop = kodiak.loops().get(kodiak.loops().count() - 1);
    }

    /** A server that accepts connections (the kernel's backlog does) and never reads: the fakes stand for what it would say. */
    private String listening() throws IOException {
        ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        sockets.add(socket);
        return "http://127.0.0.1:" + socket.getLocalPort();
    }

    private static int refusingPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private Exchange begin(FakeClient client, String request) throws Exception {
        client.loop = loop;
        return onLoop(() -> {
            RequestHead head = parse(request);
            Admission admission = new Admission(kodiak.services());
            Admission.Decision decision = admission.decide(head, client);
            assertNull(decision.refusal(), "refused: " + decision.refusal());
            return admission.begin(client, head, decision);
        });
    }

    private FakeUpstream nextBound() throws InterruptedException {
        FakeUpstream next = bound.poll(10, TimeUnit.SECONDS);
        assertNotNull(next, "no connection was handed over");
        return next;
    }

    private <T> T onLoop(Callable<T> task) throws Exception {
        return OnLoop.call(loop, task);
    }

    private void onLoop(Runnable task) throws Exception {
        onLoop(() -> {
            task.run();
            return null;
        });
    }

    private boolean loopCall(Callable<Boolean> task) {
        try {
            return onLoop(task);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static RequestHead parse(String request) {
        HeadReader reader = new HeadReader(HeadScanner.Start.REQUEST_LINE, 8192, Violation.REQUEST_LINE_TOO_LONG);
        assertTrue(reader.read(Buffers.wrap(null, request.getBytes(StandardCharsets.US_ASCII))));
        RequestHead head = new RequestHead();
        head.parse(reader);
        return head;
    }

    private static ResponseHead response(String statusLine, String fields) {
        HeadReader reader = new HeadReader(HeadScanner.Start.STATUS_LINE, 8192, Violation.HEAD_TOO_LARGE);
        String text = "HTTP/1.1 " + statusLine + "\r\n" + fields + "\r\n\r\n";
        assertTrue(reader.read(Buffers.wrap(null, text.getBytes(StandardCharsets.US_ASCII))));
        ResponseHead head = new ResponseHead();
        head.parse(reader);
        return head;
    }

    private static Buffer text(String text) {
        return Buffers.wrap(null, text.getBytes(StandardCharsets.US_ASCII));
    }

    private static String shown(Buffer piece) {
        return piece == null || !piece.hasRemaining() ? "" : " " + piece.toStringContent(StandardCharsets.US_ASCII);
    }

    // ------------------------------------------------------------------ the fakes

    /** A request as the fake protocol prepared it: its method and path, for the fakes' record. */
    private record Prepared(String line) implements PreparedRequest {
    }

    private final class FakeProtocol implements UpstreamProtocol {
        @Override
        public PreparedRequest prepare(RequestHead head, Route route, Rewrites.Target target, boolean persistent,
                                       ForwardedRequest request, MemoryManager memory) {
            return new Prepared(head.methodName() + " " + target.path());
        }

        @Override
        public UpstreamStream bind(Connection<?> connection, UpstreamPool pool, ResponseListener listener) {
            FakeUpstream stream = new FakeUpstream(connection, pool, listener, nextReused);
            bound.add(stream);
            return stream;
        }
    }

    /** A fake side's output: room as a test sets it, and the wait the exchange registered. Touched on the loop only. */
    private static final class Room {
        volatile boolean free = true;
        WriteHandler waiting;

        /** The side has room again: the registered wait hears it. */
        void again() {
            free = true;
            WriteHandler handler = waiting;
            waiting = null;
            try {
                handler.onWritePossible();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }
    }

    /** Records what the exchange writes to the upstream; room and deadlines as a test sets them. Touched on the loop only. */
    private static final class FakeUpstream implements UpstreamStream {
        final Connection<?> connection;
        final UpstreamPool pool;
        final ResponseListener listener;
        final boolean reused;
        final List<String> sent = new ArrayList<>();
        final Room room = new Room();
        volatile boolean deadlineStillSet;
        volatile long deadline = -1;
        volatile int resumes;
        volatile Boolean finished;

        FakeUpstream(Connection<?> connection, UpstreamPool pool, ResponseListener listener, boolean reused) {
            this.connection = connection;
            this.pool = pool;
            this.listener = listener;
            this.reused = reused;
        }

        InetSocketAddress peer() {
            return (InetSocketAddress) connection.getPeerAddress();
        }


        @Override
        public void sendRequest(PreparedRequest request, Buffer held, boolean last) {
            sent.add("request " + ((Prepared) request).line() + shown(held) + (last ? ", end" : ""));
        }

        @Override
        public void sendBody(Buffer piece, boolean last) {
            sent.add("body" + shown(piece) + (last ? ", end" : ""));
        }

        @Override
        public void relay(Buffer bytes) {
            sent.add("relay" + shown(bytes));
        }

        @Override
        public void resumeReads() {
            resumes++;
        }

        @Override
        public void armDeadline(long millis) {
            deadline = millis;
        }

        @Override
        public boolean deadlineSet() {
            return deadlineStillSet;
        }

        @Override
        public boolean closedBeforeBound() {
            return false;
        }

        @Override
        public boolean reused() {
            return reused;
        }

        @Override
        public boolean headBegun() {
            return false;
        }

        @Override
        public Throwable tlsFailure() {
            return null;
        }

        @Override
        public void finish(boolean reusable) {
            finished = reusable;
            // Nothing went over the real connection: it is let go of whatever the exchange decided.
            pool.discard(connection);
        }

        @Override
        public boolean hasRoom() {
            return room.free;
        }

        @Override
        public void whenRoom(WriteHandler then) {
            room.waiting = then;
        }

        @Override
        public boolean halfCloses() {
            return true;
        }

        @Override
        public void shutdownOutput() {
            sent.add("shutdown");
        }

        @Override
        public void close() {
            sent.add("close");
        }
    }

    /** Records what the exchange writes to the client; room as a test sets it. Touched on the loop only. */
    private final class FakeClient implements ClientStream {
        final List<String> events = new ArrayList<>();
        final Room room = new Room();
        volatile int resumes;
        EventLoop loop;


        @Override
        public EventLoop loop() {
            return loop;
        }

        @Override
        public MemoryManager memory() {
            return kodiak.memoryManager();
        }

        @Override
        public io.kodiak.proxyprotocol.ClientOrigin origin() {
            return io.kodiak.proxyprotocol.ClientOrigin.NOBODY;
        }

        @Override
        public String address() {
            return "127.0.0.1";
        }

        @Override
        public String tlsProtocol() {
            return null;
        }

        @Override
        public boolean misdirected(String host) {
            return false;
        }

        @Override
        public boolean mayKeepAlive() {
            return true;
        }

        @Override
        public void sendContinue() {
            events.add("100");
        }

        @Override
        public boolean sendInterim(ResponseHead head) {
            events.add("interim " + head.status());
            return true;
        }

        @Override
        public boolean sendHead(ResponseHead head, HeaderRules rules, HeaderVariable.Values values, boolean keepAllowed,
                                Buffer firstPiece, boolean last) {
            events.add("head " + head.status() + shown(firstPiece) + (last ? ", end" : ""));
            return keepAllowed;
        }

        @Override
        public void sendBody(Buffer piece, boolean last) {
            events.add("body" + shown(piece) + (last ? ", end" : ""));
        }

        @Override
        public void relay(Buffer bytes) {
            events.add("relay" + shown(bytes));
        }

        @Override
        public void sendLocal(ProxyError error, String detail, long requestNumber, boolean keep) {
            events.add("local " + error.status + (keep ? " keep" : " close"));
        }

        @Override
        public void resumeReads() {
            resumes++;
        }

        @Override
        public void switchToTunnel(Exchange exchange) {
            events.add("tunnel");
        }

        @Override
        public void exchangeEnded(Exchange exchange, boolean keepAlive) {
            events.add("ended " + (keepAlive ? "keep" : "close"));
        }

        @Override
        public boolean hasRoom() {
            return room.free;
        }

        @Override
        public void whenRoom(WriteHandler then) {
            room.waiting = then;
        }

        @Override
        public boolean halfCloses() {
            return true;
        }

        @Override
        public void shutdownOutput() {
            events.add("shutdown");
        }

        @Override
        public void close() {
            events.add("close");
        }
    }
}
