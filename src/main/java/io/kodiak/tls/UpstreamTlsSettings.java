package io.kodiak.tls;

import java.nio.file.Path;

/**
 * TLS to https:// upstreams, from proxy.upstream.tls: whom to trust ({@code trust} null for the
 * JDK's system CAs), whether the certificate must name the host, a client certificate for mutual
 * TLS (both null without one), and the SNI name to send ({@code serverName} null: the URL's host).
 */
public record UpstreamTlsSettings(Path trust, boolean verifyHostname, Path certificate, Path key, String serverName) {
}
