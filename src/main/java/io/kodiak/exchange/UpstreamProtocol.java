package io.kodiak.exchange;

import io.kodiak.http.RequestHead;
import io.kodiak.routing.Rewrites;
import io.kodiak.routing.Route;
import io.kodiak.upstream.ResponseListener;
import io.kodiak.upstream.UpstreamPool;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.memory.MemoryManager;

/** How requests travel to upstream servers: what is sent for a request, and the stream an attempt sends it on. */
public interface UpstreamProtocol {

    /**
     * What every attempt sends for {@code head} on {@code route} to {@code target}. {@code
     * persistent}: the upstream connection may carry further requests.
     */
    PreparedRequest prepare(RequestHead head, Route route, Rewrites.Target target, boolean persistent,
                            ForwardedRequest request, MemoryManager memory);

    /** A stream on {@code connection}, handed over by {@code pool}, its events for {@code listener}. */
    UpstreamStream bind(Connection<?> connection, UpstreamPool pool, ResponseListener listener);
}
