package io.kodiak.forward;

import io.kodiak.routing.Router;
import io.kodiak.upstream.ResponseTimeouts;
import io.kodiak.upstream.UpstreamClient;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** What every exchange shares: routing, upstream pools, the response clock, drain state, limits and error counts. */
public final class ForwardingServices {
    private static final String CLIENT_ABORT = "client_abort";

    private final Router router;
    private final UpstreamClient upstreams;
    private final ResponseTimeouts timeouts;
    private final Drain drain;
    private final long maxBodySize;
    private final Map<String, LongAdder> errorsByCause = new ConcurrentHashMap<>();
    private final ExchangeObserver observer;

    public ForwardingServices(Router router, UpstreamClient upstreams, org.glassfish.grizzly.utils.DelayedExecutor timers,
                              long responseTimeoutMillis, long maxBodySize, Drain drain, ExchangeObserver observer) {
        this.observer = observer;
        this.router = router;
        this.upstreams = upstreams;
        this.timeouts = new ResponseTimeouts(timers, responseTimeoutMillis);
        this.drain = drain;
        this.maxBodySize = maxBodySize;
    }

    Router router() {
        return router;
    }

    UpstreamClient upstreams() {
        return upstreams;
    }

    ResponseTimeouts timeouts() {
        return timeouts;
    }

    Drain drain() {
        return drain;
    }

    long maxBodySize() {
        return maxBodySize;
    }

    boolean exceedsBodyLimit(long bytes) {
        return maxBodySize >= 0 && bytes > maxBodySize;
    }

    /** Counts an error by cause; null means the client went away. */
    void onError(ProxyError error) {
        String cause = error == null ? CLIENT_ABORT : error.cause;
        errorsByCause.computeIfAbsent(cause, k -> new LongAdder()).increment();
        observer.onError(cause);
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
