package io.kodiak.client;

/** The listener settings the client side applies to every connection. */
public record ClientSettings(int maxHeaderSize, boolean persistentConnections, int maxRequestsPerConnection,
                             long idleTimeoutMillis) {
}
