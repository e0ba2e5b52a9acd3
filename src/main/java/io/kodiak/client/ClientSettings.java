package io.kodiak.client;

/**
 * The listener settings the client side applies to every connection. {@code tls}: the listener's
 * connections speak TLS (X-Forwarded-Proto: https, and the protocol in the access log).
 */
public record ClientSettings(int maxHeaderSize, boolean persistentConnections, int maxRequestsPerConnection,
                             long idleTimeoutMillis, boolean tls) {
}
