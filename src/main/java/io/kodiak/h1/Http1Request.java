package io.kodiak.h1;

import io.kodiak.exchange.PreparedRequest;
import org.glassfish.grizzly.Buffer;

/**
 * A request as an HTTP/1.1 upstream reads it: its head's bytes ({@link UpstreamRequestHead}),
 * sent by each attempt as a duplicate, and whether its body goes chunked. Released at the exchange's end.
 */
record Http1Request(Buffer head, boolean chunked) implements PreparedRequest {

    @Override
    public void release() {
        // Attempts sent duplicates, each let go of once written; this is the original's share.
        head.tryDispose();
    }
}
