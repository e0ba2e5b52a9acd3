package io.kodiak.h1;

/** How the response body is delimited towards the client, decided once from the upstream's head and the client's version. */
enum ClientFraming {
    /** No body (HEAD, 1xx, 204, 304) or a known length: the body passes as it is. */
    AS_RECEIVED,
    /** Chunked, re-framed piece by piece: the upstream sent chunked or close-delimited, the client reads HTTP/1.1. */
    CHUNKED,
    /** Delimited by closing the connection: an HTTP/1.0 client and a body without a length. */
    CLOSE
}
