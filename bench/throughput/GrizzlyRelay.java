import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.CompletionHandler;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.Grizzly;
import org.glassfish.grizzly.attributes.Attribute;
import org.glassfish.grizzly.filterchain.BaseFilter;
import org.glassfish.grizzly.filterchain.FilterChainBuilder;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;
import org.glassfish.grizzly.filterchain.TransportFilter;
import org.glassfish.grizzly.nio.RoundRobinConnectionDistributor;
import org.glassfish.grizzly.nio.transport.TCPNIOConnectorHandler;
import org.glassfish.grizzly.nio.transport.TCPNIOTransport;
import org.glassfish.grizzly.nio.transport.TCPNIOTransportBuilder;
import org.glassfish.grizzly.strategies.SameThreadIOStrategy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * The floor under any proxy built on Grizzly's transport, for bin/bench.sh throughput --targets relay:
 * a TCP relay with no HTTP at all. Each client connection gets its own upstream connection, opened
 * when the client connects, and every buffer read on one is written, as it is, to the other. The
 * transports are set up as Kodiak's are (same-thread strategy, one selector per core plus an accept
 * thread on the listener, TCP_NODELAY, Grizzly's heap buffers), so the CPU per request it costs is what
 * Grizzly's reads, filter-chain passes and writes cost, before any parsing. With keep-alive clients and
 * a keep-alive backend it relays HTTP/1.1 correctly: bytes pass through unchanged.
 *
 * <p>Not a proxy: no back-pressure (a slow reader lets the write queue grow), no timeouts, no limits.
 * Usage: java -cp 'lib/*' GrizzlyRelay.java LISTEN_PORT UPSTREAM_PORT [SELECTOR_THREADS]
 */
public final class GrizzlyRelay {
    private static final Attribute<Peer> PEER = Grizzly.DEFAULT_ATTRIBUTE_BUILDER.createAttribute("relay.peer");

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        InetSocketAddress upstream = new InetSocketAddress("127.0.0.1", Integer.parseInt(args[1]));
        int selectors = args.length > 2 ? Integer.parseInt(args[2]) : Runtime.getRuntime().availableProcessors();

        TCPNIOTransport upstreamSide = transport(selectors);
        TCPNIOTransport clientSide = transport(selectors + 1);
        clientSide.setNIOChannelDistributor(new RoundRobinConnectionDistributor(clientSide, true, true));

        upstreamSide.setProcessor(FilterChainBuilder.stateless().add(new TransportFilter()).add(new Relay()).build());
        TCPNIOConnectorHandler connector = TCPNIOConnectorHandler.builder(upstreamSide).build();
        clientSide.setProcessor(FilterChainBuilder.stateless().add(new TransportFilter())
                .add(new ClientSide(connector, upstream)).add(new Relay()).build());

        upstreamSide.start();
        clientSide.start();
        clientSide.bind("127.0.0.1", port);
        System.out.println("GrizzlyRelay 127.0.0.1:" + port + " -> " + upstream + ", " + selectors + " selector threads");
        new CountDownLatch(1).await();
    }

    private static TCPNIOTransport transport(int selectors) {
        return TCPNIOTransportBuilder.newInstance()
                .setIOStrategy(SameThreadIOStrategy.getInstance())
                .setSelectorRunnersCount(selectors)
                .setTcpNoDelay(true)
                .setReuseAddress(true)
                .setServerConnectionBackLog(8192)
                .build();
    }

    /** The other end of a relayed pair; bytes that arrive before it is connected wait here. */
    private static final class Peer {
        private Connection<?> connection;
        private List<Buffer> waiting = new ArrayList<>();
        private boolean closed;

        synchronized void send(Buffer buffer) {
            if (connection == null) {
                waiting.add(buffer);
            } else {
                connection.write(buffer);
            }
        }

        void connected(Connection<?> peer) {
            boolean closeNow;
            synchronized (this) {
                connection = peer;
                closeNow = closed;
                // Under the lock: a read on the other thread may send as soon as the connection is
                // published, and must not overtake these. Grizzly's writes only queue, so this is short.
                if (!closeNow) {
                    waiting.forEach(peer::write);
                }
                waiting = null;
            }
            if (closeNow) {
                peer.closeSilently();
            }
        }

        /** This side closed: so does the other, now or as soon as it is connected. */
        void close() {
            Connection<?> other;
            synchronized (this) {
                closed = true;
                other = connection;
            }
            if (other != null) {
                other.closeSilently();
            }
        }
    }

    /** On accept, opens the client's own upstream connection and links the two. */
    private static final class ClientSide extends BaseFilter {
        private final TCPNIOConnectorHandler connector;
        private final InetSocketAddress upstream;

        ClientSide(TCPNIOConnectorHandler connector, InetSocketAddress upstream) {
            this.connector = connector;
            this.upstream = upstream;
        }

        @Override
        public NextAction handleAccept(FilterChainContext ctx) {
            Connection<?> client = ctx.getConnection();
            Peer toUpstream = new Peer();
            PEER.set(client, toUpstream);
            connector.connect(upstream, new CompletionHandler<Connection>() {
                @Override
                public void completed(Connection connection) {
                    Peer toClient = new Peer();
                    toClient.connected(client);
                    PEER.set(connection, toClient);
                    toUpstream.connected(connection);
                }

                @Override
                public void failed(Throwable error) {
                    client.closeSilently();
                }

                @Override
                public void cancelled() {
                    client.closeSilently();
                }

                @Override
                public void updated(Connection connection) {
                }
            });
            return ctx.getStopAction();
        }
    }

    /** Writes what one side read to the other; a close on either side closes both. */
    private static final class Relay extends BaseFilter {
        @Override
        public NextAction handleRead(FilterChainContext ctx) {
            Peer peer = PEER.get(ctx.getConnection());
            Buffer buffer = ctx.getMessage();
            if (peer == null) {
                buffer.tryDispose();
            } else {
                peer.send(buffer);
            }
            return ctx.getStopAction();
        }

        @Override
        public NextAction handleClose(FilterChainContext ctx) throws IOException {
            Peer peer = PEER.get(ctx.getConnection());
            if (peer != null) {
                peer.close();
            }
            return ctx.getStopAction();
        }
    }
}
