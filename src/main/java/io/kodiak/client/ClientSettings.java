package io.kodiak.client;

import io.kodiak.h2.Http2Settings;
import io.kodiak.tls.CertificateNames;

/**
 * The listener settings the client side applies to every connection. {@code answerHalfClosed}: a
 * request whose client then ends its input is still answered (proxy.listener.client-half-close =
 * "answer"). {@code tls}: the listener's
 * connections speak TLS (X-Forwarded-Proto: https, and the protocol in the access log);
 * {@code certificates}: which certificate serves which name on it (421 for a request whose host
 * another certificate serves); {@code http2}: null when HTTP/2 is off, else what each HTTP/2
 * connection announces (a client that opens with the HTTP/2 preface speaks it).
 */
public record ClientSettings(int maxHeaderSize, boolean persistentConnections, int maxRequestsPerConnection,
                             long idleTimeoutMillis, boolean answerHalfClosed, boolean tls,
                             CertificateNames certificates, Http2Settings http2) {
}
