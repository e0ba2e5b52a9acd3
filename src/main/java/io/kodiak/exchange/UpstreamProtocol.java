package io.kodiak.exchange;

import io.kodiak.http.RequestHead;
import io.kodiak.routing.Rewrites;
import io.kodiak.routing.Route;
import io.kodiak.upstream.ResponseListener;
import io.kodiak.upstream.UpstreamPool;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.memory.MemoryManager;

/**
 * How requests travel to upstream servers: what is sent for a request, and the stream an attempt
 * sends it on (HTTP/1.1, {@code h1.Http1Upstream}; h2, {@code h2.upstream.Http2Upstream}).
 */
public interface UpstreamProtocol {

    /**
     * What every attempt sends for {@code head} on {@code route} to {@code target}. {@code
     * persistent}: the upstream connection may carry further requests.
     */
    PreparedRequest prepare(RequestHead head, Route route, Rewrites.Target target, boolean persistent,
                            ForwardedRequest request, MemoryManager memory);

    /** A stream on {@code connection}, handed over by {@code pool}, its events for {@code listener}. */
    UpstreamStream bind(Connection<?> connection, UpstreamPool pool, ResponseListener listener);

    /**
     * True when many exchanges share a connection (h2): an attempt then gets its stream from
     * {@link #acquire}, not a connection from the pool.
     */
    default boolean multiplexes() {
        return false;
    }

    /**
     * A stream to {@code pool}'s server for {@code listener}'s request, handed to {@code waiter} on
     * the caller's loop; {@code fresh}: the last one was refused or stale, so not on a connection
     * that carried it.
     */
    default void acquire(UpstreamPool pool, boolean fresh, ResponseListener listener, StreamWaiter waiter) {
        throw new UnsupportedOperationException("connections here carry one exchange at a time");
    }
}
