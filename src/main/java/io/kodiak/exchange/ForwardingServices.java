package io.kodiak.exchange;

import io.kodiak.routing.Router;
import io.kodiak.upstream.ExchangeDeadlines;
import io.kodiak.upstream.UpstreamClient;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** What every exchange shares: routing, upstream pools, the response clock, drain state, limits and error counts. */
public final class ForwardingServices {

    private final Router router;
    private final UpstreamClient upstreams;
    private final ExchangeDeadlines deadlines;
    private final long responseTimeoutMillis;
    private final long stallTimeoutMillis;
    private final Drain drain;
    private final long maxBodySize;
    private final Map<String, LongAdder> errorsByCause = new ConcurrentHashMap<>();
    private final ExchangeObserver observer;
    private final Recorder recorder;

    public ForwardingServices(Router router, UpstreamClient upstreams, org.glassfish.grizzly.utils.DelayedExecutor timers,
                              long responseTimeoutMillis, long stallTimeoutMillis, long maxBodySize, Drain drain,
                              ExchangeObserver observer) {
        this.observer = observer;
        this.recorder = new Recorder(observer);
        this.router = router;
        this.upstreams = upstreams;
        this.deadlines = new ExchangeDeadlines(timers);
        this.responseTimeoutMillis = responseTimeoutMillis;
        this.stallTimeoutMillis = stallTimeoutMillis;
        this.drain = drain;
        this.maxBodySize = maxBodySize;
    }

    Router router() {
        return router;
    }

    UpstreamClient upstreams() {
        return upstreams;
    }

    ExchangeDeadlines deadlines() {
        return deadlines;
    }

    /** From the request being sent to the first response byte. */
    long responseTimeoutMillis() {
        return responseTimeoutMillis;
    }

    /** Longest a transfer in progress may make no progress (the listener's idle-timeout). */
    long stallTimeoutMillis() {
        return stallTimeoutMillis;
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
