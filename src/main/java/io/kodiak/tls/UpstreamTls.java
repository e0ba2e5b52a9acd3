package io.kodiak.tls;

import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.ssl.SSLEngineConfigurator;
import org.glassfish.grizzly.ssl.SSLFilter;

import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * TLS to upstream servers: one JSSE client context (trusted CAs, the client certificate for
 * mutual TLS) and, per server, a Grizzly {@link SSLFilter} whose engines name that server: its
 * host as SNI and for hostname verification (RFC 6125, the JDK's "HTTPS" identification), and its
 * host:port as the key of the JDK's session cache, so pooled and new connections resume sessions.
 */
public final class UpstreamTls {
    private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};
    private final UpstreamTlsSettings settings;
    private final SSLContext context;
    /** The files' state when they were read (see {@link #filesChanged}). */
    private final String fingerprint;

    private UpstreamTls(UpstreamTlsSettings settings, SSLContext context, String fingerprint) {
        this.settings = settings;
        this.context = context;
        this.fingerprint = fingerprint;
    }

    private static List<java.nio.file.Path> files(UpstreamTlsSettings settings) {
        List<java.nio.file.Path> files = new java.util.ArrayList<>();
        for (java.nio.file.Path file : new java.nio.file.Path[] {settings.trust(), settings.certificate(), settings.key()}) {
            if (file != null) {
                files.add(file);
            }
        }
        return files;
    }

    /** True when a file (trust, certificate, key) was rewritten since it was read: a reload reads it again. */
    public boolean filesChanged() {
        return !FileFingerprint.of(files(settings)).equals(fingerprint);
    }

    public static UpstreamTls create(UpstreamTlsSettings settings) throws PemMaterial.Unusable {
        // Taken before reading: a rewrite while reading shows as a change at the next reload.
        String fingerprint = FileFingerprint.of(files(settings));
        try {
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            if (settings.trust() == null) {
                trust.init((KeyStore) null);
            } else {
                KeyStore store = emptyStore();
                int i = 0;
                for (X509Certificate ca : PemMaterial.certificates(settings.trust())) {
                    store.setCertificateEntry("ca-" + i++, ca);
                }
                trust.init(store);
            }
            KeyManager[] keys = null;
            if (settings.certificate() != null) {
                PemMaterial identity = PemMaterial.load(settings.certificate(), settings.key());
                KeyStore store = emptyStore();
                store.setKeyEntry("client", identity.key(), new char[0], identity.chain().toArray(X509Certificate[]::new));
                KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                factory.init(store, new char[0]);
                keys = factory.getKeyManagers();
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys, trust.getTrustManagers(), null);
            return new UpstreamTls(settings, context, fingerprint);
        } catch (GeneralSecurityException e) {
            throw new PemMaterial.Unusable("cannot set up upstream TLS (" + e.getMessage() + ")");
        }
    }

    private static KeyStore emptyStore() throws GeneralSecurityException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try {
            store.load(null, null);
        } catch (IOException impossible) {
            throw new GeneralSecurityException(impossible);
        }
        return store;
    }

    /**
     * The filter for connections to {@code host:port}; {@code onFailure} hears of every failed
     * handshake with its cause (the connection is closed after it).
     */
    public SSLFilter filterFor(String host, int port, BiConsumer<Connection<?>, Throwable> onFailure, TlsObserver observer) {
        return filterFor(host, port, "http/1.1", onFailure, observer);
    }

    /** As above, offering {@code alpn} (the one protocol the connection will speak: http/1.1 or h2). */
    public SSLFilter filterFor(String host, int port, String alpn, BiConsumer<Connection<?>, Throwable> onFailure,
                               TlsObserver observer) {
        SSLFilter filter = new ReusingSslFilter(null, new Engines(context, settings, host, port, alpn)) {
            @Override
            protected void notifyHandshakeFailed(Connection connection, Throwable t) {
                // First: Grizzly's own handling fails the queued writes, which closes the
                // connection and tells the exchange at once; by then it must know why.
                onFailure.accept(connection, t);
                super.notifyHandshakeFailed(connection, t);
            }
        };
        filter.addHandshakeListener(new ServerTls.Handshakes("upstream", observer));
        return filter;
    }

    /** Client engines for one server. */
    private static final class Engines extends SSLEngineConfigurator {
        private final UpstreamTlsSettings settings;
        private final String host;
        private final int port;
        private final String alpn;

        Engines(SSLContext context, UpstreamTlsSettings settings, String host, int port, String alpn) {
            super(context, true, false, false);
            this.settings = settings;
            this.host = host;
            this.port = port;
            this.alpn = alpn;
            setEnabledProtocols(PROTOCOLS);
        }

        @Override
        public SSLEngine createSSLEngine(String peerHost, int peerPort) {
            // The configured host and port, not the resolved address: they are what the
            // certificate must name and what the session cache is keyed by.
            return configure(getSslContext().createSSLEngine(host, port));
        }

        @Override
        public SSLEngine configure(SSLEngine engine) {
            engine.setUseClientMode(true);
            SSLParameters parameters = engine.getSSLParameters();
            parameters.setProtocols(PROTOCOLS);
            parameters.setApplicationProtocols(new String[] {alpn});
            String sni = settings.serverName() != null ? settings.serverName() : host;
            if (!isAddressLiteral(sni)) {
                parameters.setServerNames(List.of(new SNIHostName(sni)));
            }
            if (settings.verifyHostname()) {
                parameters.setEndpointIdentificationAlgorithm("HTTPS");
            }
            engine.setSSLParameters(parameters);
            return engine;
        }

        @Override
        public SSLEngineConfigurator copy() {
            return new Engines(getSslContext(), settings, host, port, alpn);
        }
    }

    /** SNI carries names only (RFC 6066 §3): an IPv4 or IPv6 literal is not sent. */
    static boolean isAddressLiteral(String host) {
        return host.indexOf(':') >= 0 || host.chars().allMatch(c -> c == '.' || (c >= '0' && c <= '9'));
    }
}
