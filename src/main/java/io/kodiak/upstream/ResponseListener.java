package io.kodiak.upstream;

import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;
import org.glassfish.grizzly.http.HttpContent;

/** What an upstream connection reports to the exchange currently using it. */
public interface ResponseListener {

    /** A decoded piece of the response; the first carries the HttpResponsePacket. Returns the chain's next action. */
    NextAction onResponseContent(FilterChainContext ctx, HttpContent content);

    /** The response cannot be relayed (broken framing or syntax); the connection is being closed. Upstream thread. */
    void onInvalidResponse(String problem);

    /** The connection closed (by the upstream, a reset, or us) while bound to this listener. */
    void onUpstreamClosed();

    /** The deadline last set through {@link ExchangeDeadlines} passed without progress. Called on the timer thread. */
    void onDeadline();
}
