import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Iterator;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The floor under any proxy on the JVM, for bin/bench.sh throughput --targets nio-relay: a TCP relay on the
 * JDK's own selectors, with no framework and no HTTP. Built the cheapest way the JDK allows, so that what it
 * costs is the JVM's share (selector, system calls through JNI), not a design's: one thread accepts, and
 * each client connection and its own upstream connection live on the same selector thread (one per core),
 * so a relayed buffer never changes threads; reads land in that thread's direct buffer and are written
 * from it, so no byte is copied on the Java heap. A write that does not finish parks the rest and stops
 * reading the other side until it drains.
 *
 * <p>Not a proxy: no timeouts, no limits. Compare bench/throughput/GrizzlyRelay.java, the same relay on
 * Grizzly's transport. Usage: java NioRelay.java LISTEN_PORT UPSTREAM_PORT [SELECTOR_THREADS]
 */
public final class NioRelay {
    public static void main(String[] args) throws IOException {
        int port = Integer.parseInt(args[0]);
        InetSocketAddress upstream = new InetSocketAddress("127.0.0.1", Integer.parseInt(args[1]));
        int threads = args.length > 2 ? Integer.parseInt(args[2]) : Runtime.getRuntime().availableProcessors();
        Worker[] workers = new Worker[threads];
        for (int i = 0; i < threads; i++) {
            workers[i] = new Worker();
            Thread thread = new Thread(workers[i], "nio-relay-" + i);
            thread.start();
        }
        ServerSocketChannel server = ServerSocketChannel.open();
        server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        server.bind(new InetSocketAddress("127.0.0.1", port), 8192);
        System.out.println("NioRelay 127.0.0.1:" + port + " -> " + upstream + ", " + threads + " selector threads");
        for (int next = 0; ; next = (next + 1) % threads) {
            SocketChannel client = server.accept();
            SocketChannel toUpstream;
            try {
                toUpstream = SocketChannel.open(upstream);
            } catch (IOException e) {
                client.close();
                continue;
            }
            workers[next].adopt(client, toUpstream);
        }
    }

    /** One side of a pair: its channel, and bytes read from the other side that it could not take yet. */
    private static final class End {
        final SocketChannel channel;
        End peer;
        SelectionKey key;
        ByteBuffer pending;

        End(SocketChannel channel) {
            this.channel = channel;
        }
    }

    private static final class Worker implements Runnable {
        private final Selector selector;
        private final Queue<SocketChannel[]> arrivals = new ConcurrentLinkedQueue<>();
        private final ByteBuffer buffer = ByteBuffer.allocateDirect(64 * 1024);

        Worker() throws IOException {
            selector = Selector.open();
        }

        void adopt(SocketChannel client, SocketChannel upstream) {
            arrivals.add(new SocketChannel[] {client, upstream});
            selector.wakeup();
        }

        @Override
        public void run() {
            while (true) {
                try {
                    selector.select();
                    for (SocketChannel[] pair; (pair = arrivals.poll()) != null; ) {
                        register(pair[0], pair[1]);
                    }
                    Iterator<SelectionKey> ready = selector.selectedKeys().iterator();
                    while (ready.hasNext()) {
                        SelectionKey key = ready.next();
                        ready.remove();
                        End end = (End) key.attachment();
                        try {
                            if (key.isValid() && key.isWritable()) {
                                drain(end);
                            }
                            if (key.isValid() && key.isReadable()) {
                                relay(end);
                            }
                        } catch (IOException | java.nio.channels.CancelledKeyException e) {
                            close(end);
                        }
                    }
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }
        }

        private void register(SocketChannel client, SocketChannel upstream) {
            End a = new End(client);
            End b = new End(upstream);
            a.peer = b;
            b.peer = a;
            try {
                for (End end : new End[] {a, b}) {
                    end.channel.configureBlocking(false);
                    end.channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    end.key = end.channel.register(selector, SelectionKey.OP_READ, end);
                }
            } catch (IOException e) {
                close(a);
            }
        }

        /** Reads what {@code from} has and writes it to its peer, until either runs dry. */
        private void relay(End from) throws IOException {
            End to = from.peer;
            while (to.pending == null) {
                buffer.clear();
                int n = from.channel.read(buffer);
                if (n < 0) {
                    close(from);
                    return;
                }
                if (n == 0) {
                    return;
                }
                buffer.flip();
                to.channel.write(buffer);
                if (buffer.hasRemaining()) {
                    to.pending = ByteBuffer.allocate(buffer.remaining()).put(buffer).flip();
                    interest(to);
                    interest(from);
                }
            }
        }

        private void drain(End to) throws IOException {
            to.channel.write(to.pending);
            if (!to.pending.hasRemaining()) {
                to.pending = null;
                interest(to);
                interest(to.peer);
            }
        }

        /**
         * Derived from both ends' state every time: read unless the peer still holds unwritten bytes,
         * write while this end does. Both directions can be parked at once (a large upload while a large
         * response streams back), and setting the operations piecemeal would lose one of them.
         */
        private static void interest(End end) {
            end.key.interestOps((end.peer.pending == null ? SelectionKey.OP_READ : 0)
                    | (end.pending != null ? SelectionKey.OP_WRITE : 0));
        }

        private static void close(End end) {
            for (End e : new End[] {end, end.peer}) {
                try {
                    e.channel.close();
                } catch (IOException ignored) {
                    // closing on the way out
                }
            }
        }
    }
}
