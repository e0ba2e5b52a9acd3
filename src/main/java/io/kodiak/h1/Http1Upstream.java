package io.kodiak.h1;

import io.kodiak.exchange.ForwardedRequest;
import io.kodiak.exchange.PreparedRequest;
import io.kodiak.exchange.UpstreamProtocol;
import io.kodiak.exchange.UpstreamStream;
import io.kodiak.http.RequestHead;
import io.kodiak.routing.Rewrites;
import io.kodiak.routing.Route;
import io.kodiak.transport.WriteQueues;
import io.kodiak.upstream.ExchangeDeadlines;
import io.kodiak.upstream.ResponseListener;
import io.kodiak.upstream.UpstreamPool;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.memory.MemoryManager;

/** HTTP/1.1 to upstream servers: one request at a time per connection, its head as bytes. */
public final class Http1Upstream implements UpstreamProtocol {
    private final ExchangeDeadlines deadlines;
    private final WriteQueues queues;

    public Http1Upstream(ExchangeDeadlines deadlines, WriteQueues queues) {
        this.deadlines = deadlines;
        this.queues = queues;
    }

    @Override
    public PreparedRequest prepare(RequestHead head, Route route, Rewrites.Target target, boolean persistent,
                                   ForwardedRequest request, MemoryManager memory) {
        return new Http1Request(UpstreamRequestHead.build(head, route, target, persistent, request, memory),
                head.isChunked());
    }

    @Override
    public UpstreamStream bind(Connection<?> connection, UpstreamPool pool, ResponseListener listener) {
        return new Http1UpstreamStream(connection, pool, listener, deadlines, queues);
    }
}
