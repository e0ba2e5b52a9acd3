package io.kodiak.loop;

import io.kodiak.config.IoStrategyName;
import io.kodiak.config.ProxyConfig;
import io.kodiak.transport.PooledBuffers;
import io.kodiak.transport.WriteQueues;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.EmptyCompletionHandler;
import org.glassfish.grizzly.memory.MemoryManager;
import org.glassfish.grizzly.nio.NIOConnection;
import org.glassfish.grizzly.nio.SelectorRunner;
import org.glassfish.grizzly.nio.transport.TCPNIOTransport;
import org.glassfish.grizzly.nio.transport.TCPNIOTransportBuilder;
import org.glassfish.grizzly.strategies.SameThreadIOStrategy;
import org.glassfish.grizzly.threadpool.ThreadPoolConfig;

import java.io.IOException;
import java.util.concurrent.Executor;

/**
 * The proxy's one transport and the event loops that own its connections. Client connections are
 * accepted on selector 0 (it serves the listening sockets alone) and spread over selectors 1..n;
 * an upstream connection is registered on the selector of the loop that opens it
 * ({@link OwnerDistributor}), so an exchange's two connections, its pool and its deadlines all
 * belong to one loop: no locks between them, no hand-off between threads.
 *
 * <p>Loops exist once the transport has started ({@link #start}): Grizzly creates its selector
 * runners then.
 */
public final class EventLoops {
    private final TCPNIOTransport transport;
    private final OwnerDistributor distributor;
    private final IoStrategyName strategy;
    private final AcceptGuard acceptGuard;
    /** Known before the start: pools are made per loop when the configuration loads. */
    private final int count;
    private volatile EventLoop[] loops = new EventLoop[0];
    /** Ownership checks that failed, in this JVM; only assertions (tests) run the checks. */
    private static final java.util.concurrent.atomic.LongAdder STRAYS = new java.util.concurrent.atomic.LongAdder();

    /** The transport of {@code settings}: threads and strategy are restart-only settings. */
    public EventLoops(ProxyConfig.Listener settings, MemoryManager memory, WriteQueues writeQueues, int backlog) {
        this.strategy = settings.ioStrategy();
        this.count = Math.max(1, settings.selectorThreads());
        this.acceptGuard = new AcceptGuard(strategy == IoStrategyName.SAME_THREAD ? SameThreadIOStrategy.getInstance()
                : new LaneStrategy(this, strategy == IoStrategyName.DYNAMIC));
        TCPNIOTransportBuilder builder = TCPNIOTransportBuilder.newInstance()
                .setIOStrategy(acceptGuard)
                .setSelectorHandler(new ReadyKeysSelectorHandler())
                .setMemoryManager(memory)
                // One more than the loops: selector 0 serves the listening sockets alone. Sharing a
                // selector with hundreds of busy connections, a burst of new clients waited in the
                // listen queue for seconds (p99 over 1 s at 640 connections).
                .setSelectorRunnersCount(settings.selectorThreads() + 1)
                // Named for thread dumps, profiles and the allocation test: kodiak-loop(0) accepts.
                .setSelectorThreadPoolConfig(ThreadPoolConfig.defaultConfig().copy().setPoolName("kodiak-loop")
                        .setCorePoolSize(settings.selectorThreads() + 1).setMaxPoolSize(settings.selectorThreads() + 1))
                .setTcpNoDelay(true)
                .setKeepAlive(true)
                .setReuseAddress(true)
                .setServerConnectionBackLog(backlog);
        if (strategy.usesWorkerPool()) {
            builder.setWorkerThreadPoolConfig(ThreadPoolConfig.defaultConfig().copy()
                    .setPoolName("kodiak-worker")
                    .setCorePoolSize(settings.workerThreads())
                    .setMaxPoolSize(settings.workerThreads()));
        }
        transport = builder.build();
        PooledBuffers.sizeReads(transport);
        // Bytes queued for one connection before reads on the other side of its exchange pause.
        writeQueues.capQueues(transport);
        transport.setName("kodiak");
        distributor = new OwnerDistributor(transport, this);
        transport.setNIOChannelDistributor(distributor);
    }

    public TCPNIOTransport transport() {
        return transport;
    }

    /** Who hears of a failed accept on any listening socket of this transport (the listener, to back off). */
    public void onAcceptFailure(AcceptFailures failures) {
        acceptGuard.reportTo(failures);
    }

    /** Starts the selectors (and the worker pool) and makes one loop per I/O selector. */
    public void start() throws IOException {
        transport.start();
        SelectorRunner[] runners = distributor.runners();
        Executor workers = strategy.usesWorkerPool() ? transport.getWorkerThreadPool() : null;
        EventLoop[] made = new EventLoop[count];
        for (int i = 0; i < made.length; i++) {
            SerialLane lane = workers == null ? null : new SerialLane(workers);
            made[i] = new EventLoop(this, i, runners[runners.length == 1 ? 0 : i + 1], lane);
            if (lane != null) {
                lane.loop = made[i];
            }
        }
        loops = made;
    }

    public int count() {
        return count;
    }

    public EventLoop get(int index) {
        return loops[index];
    }

    /** The loop the calling thread runs now; null on any other thread (timers, admin, reload). */
    public EventLoop current() {
        EventLoop lane = SerialLane.current();
        if (lane != null) {
            return lane.group() == this ? lane : null;
        }
        Thread thread = Thread.currentThread();
        for (EventLoop loop : loops) {
            if (loop.lane() == null && loop.runner().getRunnerThread() == thread) {
                return loop;
            }
        }
        return null;
    }

    /** The loop that owns {@code connection}: the one whose selector it is registered on. */
    public EventLoop of(Connection<?> connection) {
        SelectorRunner runner = ((NIOConnection) connection).getSelectorRunner();
        for (EventLoop loop : loops) {
            if (loop.runner() == runner) {
                return loop;
            }
        }
        return null;
    }

    /** The loop of the calling thread, or else the first: for work that may start off any loop (tests, tools). */
    public EventLoop currentOrFirst() {
        EventLoop loop = current();
        return loop != null ? loop : loops[0];
    }

    /**
     * Posts {@code task} to {@code runner}'s next turn. A selector that stopped (the proxy's stop
     * closed it with tasks still queued) hands its tasks back instead: they run on the thread
     * that stops it, when no loop runs any more, so nothing posted is lost.
     */
    /**
     * For assertions on the forwarding path: {@code owned} is whether the caller runs where it
     * must. A failed check is counted ({@link #strays}) before the assertion reports it, so a test
     * sees it even where Grizzly swallows the error on a selector thread.
     */
    public static boolean checkOwner(boolean owned) {
        if (!owned) {
            STRAYS.increment();
        }
        return owned;
    }

    /** How many ownership checks failed in this JVM (tests: none may). */
    public static long strays() {
        return STRAYS.sum();
    }

    void enqueue(SelectorRunner runner, Runnable task) {
        transport.getSelectorHandler().enque(runner, () -> {
            task.run();
            return true;
        }, new EmptyCompletionHandler<>() {
            @Override
            public void failed(Throwable selectorClosed) {
                task.run();
            }
        });
    }
}
