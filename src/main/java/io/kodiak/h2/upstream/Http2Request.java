package io.kodiak.h2.upstream;

import io.kodiak.exchange.PreparedRequest;

/**
 * A request as an h2 upstream reads it, the same for every attempt: its pseudo-header values and
 * its fields as name, value pairs (lower-case names, nothing connection-specific), encoded on the
 * connection that sends it (HPACK's table is the connection's). {@code bodyFollows}: DATA follows
 * the head (a body of any length: h2 frames it by END_STREAM).
 */
record Http2Request(String method, String path, String authority, String[] fields, boolean bodyFollows)
        implements PreparedRequest {
}
