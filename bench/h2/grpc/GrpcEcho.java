import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The gRPC side of bin/bench.sh h2 --grpc: one unary method, /bench.Echo/Unary, answering the
 * request's bytes, built by hand with a byte[] marshaller (no protoc) on grpc-java's Netty transport,
 * as GrpcThroughKodiakTest does. Compiled at run time against the project's test classpath.
 *
 * <pre>
 *   GrpcEcho server HOST PORT               serves until SIGTERM (h2c; the calls run on Netty's event loops)
 *   GrpcEcho client HOST PORT N [tls]       N calls at once on one channel (h2c, or h2 over TLS without
 *                                           checking the certificate), each a different 100-byte message;
 *                                           exits 0 when every one answered status OK with its own bytes,
 *                                           1 otherwise (the failures counted by kind, the first shown)
 * </pre>
 */
public final class GrpcEcho {
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

    static final MethodDescriptor<byte[], byte[]> UNARY = MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName(MethodDescriptor.generateFullMethodName("bench.Echo", "Unary"))
            .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();

    /**
     * grpc-java logs through java.util.logging: a warning with a stack trace for every stream a client
     * resets, which h2load does to each call still open when its run ends (hundreds at once). Held here
     * so that the level set on it stays (JUL keeps loggers weakly).
     */
    private static final Logger GRPC_LOG = Logger.getLogger("io.grpc");

    private GrpcEcho() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 3 && args[0].equals("server")) {
            serve(args[1], Integer.parseInt(args[2]));
        } else if ((args.length == 4 || args.length == 5 && args[4].equals("tls")) && args[0].equals("client")) {
            System.exit(check(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]), args.length == 5));
        } else {
            System.err.println("usage: GrpcEcho server HOST PORT | GrpcEcho client HOST PORT N [tls]");
            System.exit(2);
        }
    }

    private static void serve(String host, int port) throws Exception {
        GRPC_LOG.setLevel(Level.SEVERE);
        ServerServiceDefinition echo = ServerServiceDefinition.builder("bench.Echo")
                .addMethod(UNARY, ServerCalls.asyncUnaryCall((request, responses) -> {
                    responses.onNext(request);
                    responses.onCompleted();
                }))
                .build();
        // directExecutor: the echo is trivial, so it runs on the event loop that read the call (no hand-off).
        Server server = NettyServerBuilder.forAddress(new InetSocketAddress(host, port))
                .directExecutor()
                .addService(echo)
                .build().start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.shutdown();
            try {
                server.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            server.shutdownNow();
        }));
        System.out.println("GrpcEcho: /bench.Echo/Unary on " + host + ":" + server.getPort());
        server.awaitTermination();
    }

    private static int check(String host, int port, int n, boolean tls) throws Exception {
        NettyChannelBuilder builder = NettyChannelBuilder.forAddress(host, port);
        if (tls) {
            builder.sslContext(GrpcSslContexts.forClient().trustManager(InsecureTrustManagerFactory.INSTANCE).build());
        } else {
            builder.usePlaintext();
        }
        ManagedChannel channel = builder.build();
        int ok = 0;
        Map<String, Integer> kinds = new LinkedHashMap<>();
        String first = null;
        try {
            List<byte[]> requests = new ArrayList<>();
            List<Future<byte[]>> calls = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                byte[] request = Arrays.copyOf(String.format("check %06d ", i).getBytes(StandardCharsets.US_ASCII), 100);
                Arrays.fill(request, 12, 100, (byte) ('a' + i % 26));
                requests.add(request);
                calls.add(ClientCalls.futureUnaryCall(channel.newCall(UNARY, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS)), request));
            }
            for (int i = 0; i < n; i++) {
                String kind;
                String detail;
                try {
                    byte[] response = calls.get(i).get(15, TimeUnit.SECONDS);
                    kind = Arrays.equals(requests.get(i), response) ? null : "wrong answer";
                    detail = kind + " (" + response.length + " bytes)";
                } catch (ExecutionException e) {
                    // grpc-status not 0, or no status at all (the stream or connection failed): the status names it.
                    Status status = Status.fromThrowable(e.getCause());
                    kind = status.getCode().name();
                    detail = status.getDescription() == null ? kind : kind + ": " + status.getDescription();
                } catch (TimeoutException e) {
                    kind = "no answer within 15 s";
                    detail = kind;
                }
                if (kind == null) {
                    ok++;
                } else {
                    kinds.merge(kind, 1, Integer::sum);
                    if (first == null) {
                        // On one line, and short: a description may hold the body of an HTML error page.
                        String line = detail.replaceAll("\\s*\\R\\s*", " ");
                        first = "call " + i + ": " + (line.length() > 200 ? line.substring(0, 200) + "…" : line);
                    }
                }
            }
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        if (ok == n) {
            System.out.println(n + " calls, all OK");
            return 0;
        }
        StringBuilder counts = new StringBuilder();
        kinds.forEach((kind, count) -> counts.append(counts.length() == 0 ? "" : ", ").append(count).append(" ").append(kind));
        System.out.println(n + " calls, " + ok + " OK, " + (n - ok) + " failed (" + counts + "); first: " + first);
        return 1;
    }
}
