package io.kodiak.upstream;

import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.http.HttpClientFilter;
import org.glassfish.grizzly.http.HttpHeader;

/**
 * Grizzly's HTTP/1.1 client codec, except that an Upgrade header does not switch the message to
 * raw pass-through: Kodiak strips Upgrade as hop-by-hop and never tunnels, so a response that
 * merely advertises an upgrade (Apache sends "Upgrade: h2c" on ordinary 200s) keeps its framing.
 */
final class UpstreamCodecFilter extends HttpClientFilter {

    UpstreamCodecFilter(int maxHeadersSize) {
        super(maxHeadersSize);
    }

    @Override
    protected void onIncomingUpgrade(FilterChainContext ctx, HttpHeader httpHeader) {
        httpHeader.getUpgradeDC().recycle();
    }
}
