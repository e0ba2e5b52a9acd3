package io.kodiak.h2.upstream;

import io.kodiak.exchange.ForwardedRequest;
import io.kodiak.exchange.PreparedRequest;
import io.kodiak.exchange.StreamWaiter;
import io.kodiak.exchange.UpstreamProtocol;
import io.kodiak.exchange.UpstreamStream;
import io.kodiak.h2.Http2Observer;
import io.kodiak.http.RequestHead;
import io.kodiak.loop.EventLoops;
import io.kodiak.routing.Rewrites;
import io.kodiak.routing.Route;
import io.kodiak.transport.Deadline;
import io.kodiak.transport.WriteQueues;
import io.kodiak.upstream.ExchangeDeadlines;
import io.kodiak.upstream.ResponseListener;
import io.kodiak.upstream.UpstreamPool;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.memory.MemoryManager;
import org.glassfish.grizzly.utils.DelayedExecutor;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * HTTP/2 to upstream servers (proxy.upstream.protocol = "h2"): requests prepared in HTTP/2's form
 * ({@link RequestPreparer}), streams handed out by each server's {@link Http2Pool}, which lives as
 * long as the server's {@link UpstreamPool} (a reload that keeps the server keeps its h2
 * connections).
 */
public final class Http2Upstream implements UpstreamProtocol {

    private final ExchangeDeadlines deadlines;
    private final WriteQueues queues;
    private final EventLoops loops;
    private final Http2Observer events;
    private final DelayedExecutor.DelayQueue<Http2Pool.LoopPool> checks;
    private final Map<UpstreamPool, Http2Pool> pools = new ConcurrentHashMap<>();

    public Http2Upstream(ExchangeDeadlines deadlines, WriteQueues queues, EventLoops loops, DelayedExecutor timers,
                         Http2Observer events) {
        this.deadlines = deadlines;
        this.queues = queues;
        this.loops = loops;
        this.events = events;
        this.checks = timers.createDelayQueue(new Http2Pool.Checks(), Deadline.resolver(Http2Pool.LoopPool::nextCheck));
    }

    @Override
    public PreparedRequest prepare(RequestHead head, Route route, Rewrites.Target target, boolean persistent,
                                   ForwardedRequest request, MemoryManager memory) {
        return RequestPreparer.prepare(head, route, target, request, memory);
    }

    @Override
    public UpstreamStream bind(Connection<?> connection, UpstreamPool pool, ResponseListener listener) {
        throw new UnsupportedOperationException("h2 streams come from acquire");
    }

    @Override
    public boolean multiplexes() {
        return true;
    }

    @Override
    public void acquire(UpstreamPool pool, boolean fresh, ResponseListener listener, StreamWaiter waiter) {
        Http2Pool streams = pools.get(pool);
        if (streams == null) {
            streams = pools.computeIfAbsent(pool, p -> new Http2Pool(p, loops, checks, deadlines, queues, events));
            Http2Pool made = streams;
            pool.whenClosed(() -> {
                pools.remove(pool, made);
                made.close();
            });
        }
        streams.acquire(loops.current(), fresh, listener, waiter);
    }

    /** Request body bytes queued for window on the calling loop's h2 connections, all servers together (on that loop). */
    long queuedBytes() {
        long queued = 0;
        for (Http2Pool streams : pools.values()) {
            queued += streams.queuedBytes(loops.current());
        }
        return queued;
    }

    /** h2 connections open to {@code pool}'s server, on every loop. */
    public int connections(UpstreamPool pool) {
        Http2Pool streams = pools.get(pool);
        return streams == null ? 0 : streams.connections();
    }
}
