package io.kodiak.h2.upstream;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.kodiak.support.Patterns;
import io.kodiak.support.ProxyHarness;
import io.kodiak.support.TestTls;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * gRPC through Kodiak: grpc-java's Netty client to Kodiak (h2c with prior knowledge on the plain
 * listener, h2 by ALPN in the TLS suite), Kodiak to a grpc-java Netty server over h2c (a group
 * with protocol = "h2"). The methods are built by hand with a byte[] marshaller (no protoc), and
 * each case checks what the server received as well as what the client got: every kind of call,
 * a deadline, an error status (a trailers-only response), 10 MiB messages, 500 calls at once.
 *
 * <p>{@link #everyCallWorksDirectlyToTheUpstream} runs every case with the client pointed straight
 * at the server, so a failure of the others is Kodiak's.
 */
class GrpcThroughKodiakTest {
    private static final int MIB = 1024 * 1024;
    private static final int MAX_MESSAGE = 16 * MIB;
    private static final String SERVICE = "kodiak.test.Relay";
    private static final Metadata.Key<String> CALL_ID = Metadata.Key.of("x-call-id", Metadata.ASCII_STRING_MARSHALLER);
    private static final Metadata.Key<byte[]> BLOB = Metadata.Key.of("x-blob-bin", Metadata.BINARY_BYTE_MARSHALLER);
    private static final Metadata.Key<String> REASON = Metadata.Key.of("x-reason", Metadata.ASCII_STRING_MARSHALLER);

    private static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };
    /** Answers the request's bytes. */
    private static final MethodDescriptor<byte[], byte[]> ECHO = method(MethodDescriptor.MethodType.UNARY, "Echo");
    /** Request: a count N (4 bytes); answers N messages, each its index (4 bytes) and 1 KiB of pattern. */
    private static final MethodDescriptor<byte[], byte[]> COUNT = method(MethodDescriptor.MethodType.SERVER_STREAMING, "Count");
    /** Requests: numbers (4 bytes each); answers their sum (8 bytes) and how many came (4 bytes). */
    private static final MethodDescriptor<byte[], byte[]> SUM = method(MethodDescriptor.MethodType.CLIENT_STREAMING, "Sum");
    /** Answers each "ping N" with "pong N" at once. */
    private static final MethodDescriptor<byte[], byte[]> PING_PONG = method(MethodDescriptor.MethodType.BIDI_STREAMING, "PingPong");
    /** Never answers; tells {@link #cancelled} the request's text once the call is cancelled. */
    private static final MethodDescriptor<byte[], byte[]> HOLD = method(MethodDescriptor.MethodType.UNARY, "Hold");
    /** Fails with NOT_FOUND "no widget " + the request's text, and trailer x-reason: missing. */
    private static final MethodDescriptor<byte[], byte[]> FAIL = method(MethodDescriptor.MethodType.UNARY, "Fail");

    /** Each call's request headers, by its x-call-id. */
    private static final Map<String, Metadata> headersSeen = new ConcurrentHashMap<>();
    /** "sha256 length" of every request ECHO received. */
    private static final Map<String, Boolean> echoed = new ConcurrentHashMap<>();
    private static final AtomicInteger echoCalls = new AtomicInteger();
    /** Each HOLD call's deadline as the server had it, by the call's request text. */
    private static final Map<String, Deadline> holdDeadlines = new ConcurrentHashMap<>();
    private static final BlockingQueue<String> cancelled = new LinkedBlockingQueue<>();

    private static Server server;
    private static ManagedChannel direct;
    private static ProxyHarness proxy;
    private static ManagedChannel proxied;

    private static MethodDescriptor<byte[], byte[]> method(MethodDescriptor.MethodType type, String name) {
        return MethodDescriptor.<byte[], byte[]>newBuilder().setType(type)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, name))
                .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();
    }

    @BeforeAll
    static void startServer() throws IOException {
        ServerServiceDefinition relay = ServerServiceDefinition.builder(SERVICE)
                .addMethod(ECHO, ServerCalls.asyncUnaryCall((request, responses) -> {
                    echoCalls.incrementAndGet();
                    echoed.put(digest(request), true);
                    responses.onNext(request);
                    responses.onCompleted();
                }))
                .addMethod(COUNT, ServerCalls.asyncServerStreamingCall((request, responses) -> {
                    int n = ByteBuffer.wrap(request).getInt();
                    for (int i = 0; i < n; i++) {
                        responses.onNext(counted(i));
                    }
                    responses.onCompleted();
                }))
                .addMethod(SUM, ServerCalls.asyncClientStreamingCall(responses -> new StreamObserver<byte[]>() {
                    private long sum;
                    private int count;

                    @Override
                    public void onNext(byte[] number) {
                        sum += ByteBuffer.wrap(number).getInt();
                        count++;
                    }

                    @Override
                    public void onError(Throwable t) {
                        // the client went away: nothing to answer
                    }

                    @Override
                    public void onCompleted() {
                        responses.onNext(ByteBuffer.allocate(12).putLong(sum).putInt(count).array());
                        responses.onCompleted();
                    }
                }))
                .addMethod(PING_PONG, ServerCalls.asyncBidiStreamingCall(responses -> new StreamObserver<byte[]>() {
                    @Override
                    public void onNext(byte[] ping) {
                        responses.onNext(text(ping).replace("ping", "pong").getBytes(StandardCharsets.UTF_8));
                    }

                    @Override
                    public void onError(Throwable t) {
                        // the client went away
                    }

                    @Override
                    public void onCompleted() {
                        responses.onCompleted();
                    }
                }))
                .addMethod(HOLD, ServerCalls.asyncUnaryCall((request, responses) -> {
                    String id = text(request);
                    Deadline deadline = Context.current().getDeadline();
                    if (deadline != null) {
                        holdDeadlines.put(id, deadline);
                    }
                    ((ServerCallStreamObserver<byte[]>) responses).setOnCancelHandler(() -> cancelled.add(id));
                }))
                .addMethod(FAIL, ServerCalls.asyncUnaryCall((request, responses) -> {
                    Metadata trailers = new Metadata();
                    trailers.put(REASON, "missing");
                    responses.onError(Status.NOT_FOUND.withDescription("no widget " + text(request)).asRuntimeException(trailers));
                }))
                .build();
        ServerInterceptor recordHeaders = new ServerInterceptor() {
            @Override
            public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
                String id = headers.get(CALL_ID);
                if (id != null) {
                    headersSeen.put(id, headers);
                }
                return next.startCall(call, headers);
            }
        };
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(ServerInterceptors.intercept(relay, recordHeaders))
                .maxInboundMessageSize(MAX_MESSAGE)
                .build().start();
        direct = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext()
                .maxInboundMessageSize(MAX_MESSAGE).build();
    }

    /**
     * The channel through Kodiak, started on first use (not in {@link #startServer}, so that a
     * Kodiak that refuses the configuration fails the tests through it, not the direct check).
     */
    private static synchronized Channel proxied() throws IOException {
        if (proxied == null) {
            proxy = ProxyHarness.start("""
                    proxy.upstreams.grpc { protocol = "h2", servers = [ { url = "http://127.0.0.1:%d" } ] }
                    proxy.routes = [ { prefix = "/", upstream = "http://grpc/" } ]
                    """.formatted(server.getPort()));
            NettyChannelBuilder builder = NettyChannelBuilder.forAddress("127.0.0.1", proxy.port())
                    .maxInboundMessageSize(MAX_MESSAGE);
            if (TestTls.ON) {
                // The TLS suite's listener: h2 by ALPN, its certificate (for 127.0.0.1) not checked here.
                builder.sslContext(GrpcSslContexts.forClient().trustManager(InsecureTrustManagerFactory.INSTANCE).build());
            } else {
                builder.usePlaintext();
            }
            proxied = builder.build();
        }
        return proxied;
    }

    @AfterAll
    static void stop() throws InterruptedException {
        for (ManagedChannel channel : new ManagedChannel[] {direct, proxied}) {
            if (channel != null) {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
        if (proxy != null) {
            proxy.close();
        }
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    // ---- through Kodiak

    @Test
    void unary() throws Exception {
        unary(proxied(), "through");
    }

    @Test
    void serverStreamingOfAHundredMessages() throws Exception {
        serverStreaming(proxied());
    }

    @Test
    void clientStreamingOfAHundredMessages() throws Exception {
        clientStreaming(proxied());
    }

    @Test
    void bidirectionalPingPongFiftyTimes() throws Exception {
        pingPong(proxied());
    }

    @Test
    void anExpiredDeadlineEndsTheCallAndTheNextCallIsServed() throws Exception {
        deadline(proxied(), "through");
    }

    @Test
    void anErrorStatusReachesTheClientWithItsDescription() throws Exception {
        errorStatus(proxied());
    }

    @Test
    void tenMiBMessagesEachWay() throws Exception {
        tenMiBEachWay(proxied());
    }

    @Test
    void fiveHundredConcurrentUnaryCallsOnOneChannel() throws Exception {
        fiveHundredAtOnce(proxied());
    }

    // ---- the same cases without Kodiak

    @Test
    void everyCallWorksDirectlyToTheUpstream() throws Exception {
        unary(direct, "direct");
        serverStreaming(direct);
        clientStreaming(direct);
        pingPong(direct);
        deadline(direct, "direct");
        errorStatus(direct);
        tenMiBEachWay(direct);
        fiveHundredAtOnce(direct);
    }

    // ---- the cases

    private static void unary(Channel channel, String id) {
        Metadata headers = new Metadata();
        headers.put(CALL_ID, "unary-" + id);
        byte[] blob = {0, 1, 2, (byte) 0xfe, (byte) 0xff, '\r', '\n'};
        headers.put(BLOB, blob);
        Channel withHeaders = ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers));
        byte[] request = ("hello " + id).getBytes(StandardCharsets.UTF_8);
        byte[] response = ClientCalls.blockingUnaryCall(withHeaders, ECHO, CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS), request);
        assertArrayEquals(request, response);
        Metadata seen = headersSeen.get("unary-" + id);
        assertNotNull(seen, "the server saw the call's x-call-id");
        assertArrayEquals(blob, seen.get(BLOB), "binary metadata arrives byte for byte");
        assertTrue(echoed.containsKey(digest(request)), "the server received the request's bytes");
    }

    private static void serverStreaming(Channel channel) {
        Iterator<byte[]> messages = ClientCalls.blockingServerStreamingCall(channel, COUNT,
                CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS), ByteBuffer.allocate(4).putInt(100).array());
        int i = 0;
        while (messages.hasNext()) {
            assertArrayEquals(counted(i), messages.next(), "message " + i);
            i++;
        }
        assertEquals(100, i);
    }

    private static void clientStreaming(Channel channel) throws Exception {
        Reply reply = new Reply();
        StreamObserver<byte[]> numbers = ClientCalls.asyncClientStreamingCall(
                channel.newCall(SUM, CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS)), reply);
        for (int i = 1; i <= 100; i++) {
            numbers.onNext(ByteBuffer.allocate(4).putInt(i).array());
        }
        numbers.onCompleted();
        List<byte[]> answer = reply.done.get(20, TimeUnit.SECONDS);
        assertEquals(1, answer.size());
        ByteBuffer sum = ByteBuffer.wrap(answer.get(0));
        assertEquals(5050, sum.getLong(), "the sum of what the server received");
        assertEquals(100, sum.getInt(), "how many messages the server received");
    }

    /** Each ping goes only once the previous pong is back: neither side's messages may wait for the stream's end. */
    private static void pingPong(Channel channel) throws Exception {
        BlockingQueue<byte[]> pongs = new LinkedBlockingQueue<>();
        Reply reply = new Reply(pongs);
        StreamObserver<byte[]> pings = ClientCalls.asyncBidiStreamingCall(
                channel.newCall(PING_PONG, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS)), reply);
        for (int i = 0; i < 50; i++) {
            pings.onNext(("ping " + i).getBytes(StandardCharsets.UTF_8));
            byte[] pong = pongs.poll(10, TimeUnit.SECONDS);
            if (pong == null) {
                reply.done.getNow(null); // the call's failure, if it failed
                fail("no pong " + i);
            }
            assertEquals("pong " + i, text(pong));
        }
        pings.onCompleted();
        assertTrue(reply.done.get(10, TimeUnit.SECONDS).isEmpty(), "nothing after the last pong");
    }

    private static void deadline(Channel channel, String id) throws Exception {
        // Connections made first, so that the 200 ms are the held call's alone.
        byte[] warm = ("before hold-" + id).getBytes(StandardCharsets.UTF_8);
        assertArrayEquals(warm, ClientCalls.blockingUnaryCall(channel, ECHO, CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS), warm));
        String call = "hold-" + id;
        StatusRuntimeException expired = assertThrows(StatusRuntimeException.class, () -> ClientCalls.blockingUnaryCall(
                channel, HOLD, CallOptions.DEFAULT.withDeadlineAfter(200, TimeUnit.MILLISECONDS), call.getBytes(StandardCharsets.UTF_8)));
        assertEquals(Status.Code.DEADLINE_EXCEEDED, expired.getStatus().getCode(), expired.toString());
        assertNotNull(holdDeadlines.get(call), "the server got the call's deadline (grpc-timeout)");
        assertEquals(call, cancelled.poll(10, TimeUnit.SECONDS), "the server saw the call end");
        // and the next call is served
        byte[] next = ("after " + call).getBytes(StandardCharsets.UTF_8);
        assertArrayEquals(next, ClientCalls.blockingUnaryCall(channel, ECHO, CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS), next));
    }

    /** NOT_FOUND before any message: a trailers-only response (HEADERS with END_STREAM and grpc-status in it). */
    private static void errorStatus(Channel channel) {
        StatusRuntimeException failure = assertThrows(StatusRuntimeException.class, () -> ClientCalls.blockingUnaryCall(
                channel, FAIL, CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS), "42".getBytes(StandardCharsets.UTF_8)));
        assertEquals(Status.Code.NOT_FOUND, failure.getStatus().getCode(), failure.toString());
        assertEquals("no widget 42", failure.getStatus().getDescription(), "the description the server gave, for the request it received");
        assertNotNull(failure.getTrailers());
        assertEquals("missing", failure.getTrailers().get(REASON));
    }

    private static void tenMiBEachWay(Channel channel) {
        byte[] request = Patterns.bytes(10 * MIB);
        byte[] response = ClientCalls.blockingUnaryCall(channel, ECHO, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS), request);
        assertEquals(request.length, response.length);
        assertArrayEquals(request, response);
        assertTrue(echoed.containsKey(digest(request)), "the server received the 10 MiB intact");
    }

    private static void fiveHundredAtOnce(Channel channel) throws Exception {
        int before = echoCalls.get();
        List<Future<byte[]>> calls = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            calls.add(ClientCalls.futureUnaryCall(channel.newCall(ECHO, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS)),
                    ("call " + i).getBytes(StandardCharsets.UTF_8)));
        }
        for (int i = 0; i < 500; i++) {
            assertEquals("call " + i, text(calls.get(i).get(30, TimeUnit.SECONDS)));
        }
        assertEquals(500, echoCalls.get() - before, "calls the server answered");
    }

    // ---- helpers

    /** A response observer gathering messages (into {@code messages} as they come, if given) until the end. */
    private static final class Reply implements StreamObserver<byte[]> {
        final CompletableFuture<List<byte[]>> done = new CompletableFuture<>();
        private final List<byte[]> kept = new ArrayList<>();
        private final BlockingQueue<byte[]> messages;

        Reply() {
            this(null);
        }

        Reply(BlockingQueue<byte[]> messages) {
            this.messages = messages;
        }

        @Override
        public void onNext(byte[] message) {
            if (messages != null) {
                messages.add(message);
            } else {
                kept.add(message);
            }
        }

        @Override
        public void onError(Throwable t) {
            done.completeExceptionally(t);
        }

        @Override
        public void onCompleted() {
            done.complete(kept);
        }
    }

    private static byte[] counted(int i) {
        return ByteBuffer.allocate(4 + 1024).putInt(i).put(Patterns.bytes(1024)).array();
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static String digest(byte[] bytes) {
        try {
            return Patterns.sha256(new ByteArrayInputStream(bytes)) + " " + bytes.length;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
