package io.kodiak.exchange;

import io.kodiak.loop.EventLoops;
import io.kodiak.transport.WriteQueues;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What every exchange shares: the configuration generation in service (routes, upstream groups,
 * timeouts, limits; replaced whole by a reload), the upstream protocol, drain state, error counts
 * and the write-queue budget.
 */
public final class ForwardingServices {

    private volatile Generation generation;
    private final UpstreamProtocol upstreamProtocol;
    private final UpstreamProtocol http2Upstream;
    private final Drain drain;
    private final Map<String, LongAdder> errorsByCause = new ConcurrentHashMap<>();
    private final ExchangeObserver observer;
    private final Recorder recorder;
    private final WriteQueues writeQueues;
    private final EventLoops loops;
    /**
     * Each loop's {@link OwningLoop}, made by the loop itself at its first exchange (so each slot
     * has one writer, and a duplicate made in a race would be as good: it holds no state).
     */
    private final OwningLoop[] owningLoops;
    /** proxy.tracing as it runs; null when off (restart only, so never replaced). */
    private final io.kodiak.tracing.Tracing tracing;

    /**
     * {@code upstreamProtocol}: HTTP/1.1's; {@code http2Upstream}: h2's, for groups that speak it;
     * {@code tracing}: null when proxy.tracing is off.
     */
    public ForwardingServices(Generation generation, UpstreamProtocol upstreamProtocol, UpstreamProtocol http2Upstream,
                              Drain drain, ExchangeObserver observer, WriteQueues writeQueues, EventLoops loops,
                              io.kodiak.tracing.Tracing tracing) {
        this.tracing = tracing;
        this.http2Upstream = http2Upstream;
        this.generation = generation;
        this.loops = loops;
        this.owningLoops = new OwningLoop[loops == null ? 0 : loops.count()];
        this.writeQueues = writeQueues;
        this.observer = observer;
        this.recorder = new Recorder(observer);
        this.upstreamProtocol = upstreamProtocol;
        this.drain = drain;
    }

    /** The way onto {@code loop} for the exchanges it owns: one per loop, not one per exchange. */
    OwningLoop owningLoop(io.kodiak.loop.EventLoop loop) {
        if (loop == null || loop.index() >= owningLoops.length) {
            return new OwningLoop(loop, this);
        }
        OwningLoop known = owningLoops[loop.index()];
        if (known == null) {
            known = new OwningLoop(loop, this);
            owningLoops[loop.index()] = known;
        }
        return known;
    }

    /** proxy.tracing as it runs; null when off. */
    public io.kodiak.tracing.Tracing tracing() {
        return tracing;
    }

    /** The loops that own connections and their exchanges. */
    public EventLoops loops() {
        return loops;
    }

    /** The generation exchanges starting now use. */
    public Generation generation() {
        return generation;
    }

    /** Exchanges whose request head arrives from now on use {@code next}; those in flight keep theirs. */
    public void install(Generation next) {
        generation = next;
    }

    /** How requests go to {@code group}'s servers: its protocol's. */
    UpstreamProtocol upstreamProtocol(io.kodiak.upstream.UpstreamGroup group) {
        return group.settings().pool().protocol() == io.kodiak.config.UpstreamProtocolName.H2 ? http2Upstream
                : upstreamProtocol;
    }

    /** Every exchange write, counted until sent; room in either side's write queues and the budget for all. */
    public WriteQueues writeQueues() {
        return writeQueues;
    }

    Drain drain() {
        return drain;
    }

    /** Counts an error by cause; null means the client went away. */
    void onError(ProxyError error) {
        String cause = error == null ? ProxyError.CLIENT_ABORT : error.cause;
        errorsByCause.computeIfAbsent(cause, k -> new LongAdder()).increment();
        observer.onError(cause);
    }

    Recorder recorder() {
        return recorder;
    }

    ExchangeObserver observer() {
        return observer;
    }

    /** Errors so far, by cause (connect, timeout, reset, client_abort, ...). */
    public Map<String, Long> errorCounts() {
        Map<String, Long> counts = new java.util.TreeMap<>();
        errorsByCause.forEach((cause, n) -> counts.put(cause, n.sum()));
        return counts;
    }
}
