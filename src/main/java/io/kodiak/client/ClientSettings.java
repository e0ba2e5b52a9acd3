package io.kodiak.client;

import io.kodiak.tls.CertificateNames;

/**
 * The listener settings the client side applies to every connection. {@code answerHalfClosed}: a
 * request whose client then ends its input is still answered (proxy.listener.client-half-close =
 * "answer"). {@code tls}: the listener's
 * connections speak TLS (X-Forwarded-Proto: https, and the protocol in the access log);
 * {@code certificates}: which certificate serves which name on it (421 for a request whose host
 * another certificate serves).
 */
public record ClientSettings(int maxHeaderSize, boolean persistentConnections, int maxRequestsPerConnection,
                             long idleTimeoutMillis, boolean answerHalfClosed, boolean tls,
                             CertificateNames certificates) {
}
