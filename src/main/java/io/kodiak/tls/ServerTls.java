package io.kodiak.tls;

import org.glassfish.grizzly.ssl.SSLEngineConfigurator;
import org.glassfish.grizzly.ssl.SSLFilter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.Provider;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * TLS for a listener: one JSSE context whose key manager picks the certificate by SNI, and the
 * Grizzly {@link SSLFilter} that goes under Kodiak's codec. Every engine offers only the configured
 * protocols and cipher suites, announces "http/1.1" by ALPN, and asks for a client certificate as
 * configured.
 */
public final class ServerTls {
    private static final Logger LOG = LoggerFactory.getLogger(ServerTls.class);
    /**
     * A client-initiated renegotiation makes Grizzly's SSLFilter run a blocking handshake on the
     * selector thread, with no time limit by default: one silent client would stop every
     * connection on that thread. TLS 1.3 has no renegotiation; for TLS 1.2 the JDK refuses it with
     * this property, read once, when the first server handshake happens (so it is set before any:
     * here, in Main, and on bin/proxy.sh's command line).
     */
    public static final String REJECT_RENEGOTIATION = "jdk.tls.rejectClientInitiatedRenegotiation";

    static {
        System.setProperty(REJECT_RENEGOTIATION, "true");
    }

    private final TlsSettings settings;
    /** The provider's instance the context was made with; null for the JDK's own. */
    private final Provider provider;
    private final SniKeyManager keys;
    /** Null unless clients present certificates (client-auth optional or required). */
    private final ClientCaTrust clientCas;
    private final SSLContext context;

    private ServerTls(TlsSettings settings, Provider provider, SniKeyManager keys, ClientCaTrust clientCas, SSLContext context) {
        this.settings = settings;
        this.provider = provider;
        this.keys = keys;
        this.clientCas = clientCas;
        this.context = context;
    }

    /** Loads every certificate and key named by {@code settings}. */
    public static ServerTls create(TlsSettings settings) throws PemMaterial.Unusable {
        Provider provider = settings.provider().instance();
        SniKeyManager keys = new SniKeyManager(entries(settings, provider));
        try {
            ClientCaTrust clientCas = settings.clientAuth() == TlsSettings.ClientAuth.NONE ? null
                    : new ClientCaTrust(trust(settings));
            SSLContext context = provider == null ? SSLContext.getInstance("TLS") : SSLContext.getInstance("TLS", provider);
            context.init(new KeyManager[] {keys}, clientCas == null ? null : new TrustManager[] {clientCas}, null);
            // Only the configured suites this provider knows: Conscrypt (BoringSSL) has no DHE.
            Set<String> supported = Set.of(context.getSupportedSSLParameters().getCipherSuites());
            List<String> ciphers = settings.ciphers().stream().filter(supported::contains).toList();
            if (ciphers.isEmpty()) {
                throw new PemMaterial.Unusable("none of the configured cipher suites is supported by the "
                        + settings.provider().configName() + " provider");
            }
            if (ciphers.size() < settings.ciphers().size()) {
                List<String> dropped = settings.ciphers().stream().filter(c -> !supported.contains(c)).toList();
                LOG.info("tls ciphers {} are not offered: the {} provider does not have them", dropped,
                        settings.provider().configName());
            }
            TlsSettings usable = new TlsSettings(settings.certificate(), settings.key(), settings.sni(), settings.protocols(),
                    ciphers, settings.clientAuth(), settings.clientCa(), settings.provider());
            return new ServerTls(usable, provider, keys, clientCas, context);
        } catch (GeneralSecurityException e) {
            throw new PemMaterial.Unusable("cannot set up TLS (" + e.getMessage() + ")");
        }
    }

    /**
     * The default pair first, then one entry per SNI block; an expired certificate is refused.
     * Keys are put in {@code provider}'s own form (null: the JDK's), see {@link PemMaterial#keyFor}.
     */
    static List<SniKeyManager.Entry> entries(TlsSettings settings, Provider provider) throws PemMaterial.Unusable {
        List<SniKeyManager.Entry> entries = new ArrayList<>();
        entries.add(new SniKeyManager.Entry(List.of(), current(settings.certificate(), settings.key(), provider)));
        for (TlsSettings.Sni sni : settings.sni()) {
            entries.add(new SniKeyManager.Entry(sni.names(), current(sni.certificate(), sni.key(), provider)));
        }
        return entries;
    }

    private static PemMaterial current(java.nio.file.Path certificate, java.nio.file.Path key, Provider provider)
            throws PemMaterial.Unusable {
        PemMaterial material = PemMaterial.load(certificate, key);
        if (material.expiredAt(java.time.Instant.now())) {
            throw new PemMaterial.Unusable("the certificate in " + certificate + " expired "
                    + material.leaf().getNotAfter().toInstant());
        }
        return material.keyFor(provider);
    }

    /** The JDK's PKIX check against the CAs of client-ca as the file holds them now. */
    private static X509ExtendedTrustManager trust(TlsSettings settings) throws PemMaterial.Unusable, GeneralSecurityException {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        try {
            store.load(null, null);
        } catch (java.io.IOException impossible) {
            throw new GeneralSecurityException(impossible);
        }
        int i = 0;
        for (X509Certificate ca : PemMaterial.certificates(settings.clientCa())) {
            store.setCertificateEntry("client-ca-" + i++, ca);
        }
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(store);
        for (TrustManager manager : factory.getTrustManagers()) {
            if (manager instanceof X509ExtendedTrustManager x509) {
                return x509;
            }
        }
        throw new GeneralSecurityException("no X.509 trust manager in the JDK");
    }

    /**
     * Re-reads every certificate and key, and the client CAs; new handshakes use them, open
     * connections keep theirs. Nothing is replaced unless everything could be read.
     */
    public void reload() throws PemMaterial.Unusable {
        List<SniKeyManager.Entry> entries = entries(settings, provider);
        if (clientCas != null) {
            X509ExtendedTrustManager cas;
            try {
                cas = trust(settings);
            } catch (GeneralSecurityException e) {
                throw new PemMaterial.Unusable("client-ca " + settings.clientCa() + " (" + e.getMessage() + ")");
            }
            if (cas.getAcceptedIssuers().length == 0) {
                throw new PemMaterial.Unusable("client-ca " + settings.clientCa() + " holds no certificate");
            }
            clientCas.replace(cas);
        }
        keys.replace(entries);
    }

    /**
     * A new filter for a listener's chain (right after the TransportFilter); {@code observer} hears
     * each handshake. {@code http2}: ALPN offers h2 before http/1.1.
     */
    public SSLFilter filter(TlsObserver observer, boolean http2) {
        SSLEngineConfigurator engines = new Engines(context, settings, http2);
        Handshakes handshakes = new Handshakes("client", observer);
        SSLFilter filter = new ReusingSslFilter(engines, null) {
            @Override
            public org.glassfish.grizzly.filterchain.NextAction handleRead(org.glassfish.grizzly.filterchain.FilterChainContext ctx)
                    throws java.io.IOException {
                try {
                    return super.handleRead(ctx);
                } catch (java.io.IOException e) {
                    // A server-side handshake that fails on the client's first message (no common
                    // protocol, say) is not reported to handshake listeners: counted here.
                    if (!Handshakes.COMPLETED.isSet(ctx.getConnection())) {
                        handshakes.onFailure(ctx.getConnection(), e);
                    }
                    throw e;
                }
            }
        };
        // No handshake timeout: with one set, Grizzly runs every handshake synchronously on the
        // selector thread (waiting for the client's next message), and a slow client would hold the
        // thread. Handshakes stay asynchronous, bounded by the connection's idle clock.
        filter.addHandshakeListener(handshakes);
        return filter;
    }

    /** Reports a listener's or a server's handshakes to the observer: protocol and cipher, or why it failed. */
    static final class Handshakes implements org.glassfish.grizzly.ssl.SSLBaseFilter.HandshakeListener {
        /** Set on a connection once its handshake completed; a failure is counted once, by whoever sees it first. */
        static final org.glassfish.grizzly.attributes.Attribute<Boolean> COMPLETED =
                org.glassfish.grizzly.Grizzly.DEFAULT_ATTRIBUTE_BUILDER.createAttribute(Handshakes.class.getName() + ".completed");
        private final String side;
        private final TlsObserver observer;

        Handshakes(String side, TlsObserver observer) {
            this.side = side;
            this.observer = observer;
        }

        @Override
        public void onStart(org.glassfish.grizzly.Connection connection) {
        }

        @Override
        public void onComplete(org.glassfish.grizzly.Connection connection) {
            COMPLETED.set(connection, Boolean.TRUE);
            SSLEngine engine = org.glassfish.grizzly.ssl.SSLUtils.getSSLEngine(connection);
            if (engine != null) {
                observer.handshake(side, engine.getSession().getProtocol(), engine.getSession().getCipherSuite());
            }
        }

        @Override
        public void onFailure(org.glassfish.grizzly.Connection connection, Throwable t) {
            // Marked so that the same failure, seen again on its way out, is not counted twice.
            if (!COMPLETED.isSet(connection)) {
                COMPLETED.set(connection, Boolean.FALSE);
                observer.handshakeFailed(side, TlsObserver.reason(t));
            }
        }
    }

    /** Applies the protocols, suites, ALPN and client-auth setting to every engine it makes. */
    private static final class Engines extends SSLEngineConfigurator {
        private static final String[] H2_THEN_HTTP11 = {"h2", "http/1.1"};
        private static final String[] HTTP11 = {"http/1.1"};
        private final TlsSettings settings;
        private final boolean http2;

        Engines(SSLContext context, TlsSettings settings, boolean http2) {
            super(context, false, settings.clientAuth() == TlsSettings.ClientAuth.REQUIRED,
                    settings.clientAuth() == TlsSettings.ClientAuth.OPTIONAL);
            this.settings = settings;
            this.http2 = http2;
            setEnabledProtocols(settings.protocols().toArray(String[]::new));
            setEnabledCipherSuites(settings.ciphers().toArray(String[]::new));
        }

        @Override
        public SSLEngine configure(SSLEngine engine) {
            super.configure(engine);
            SSLParameters parameters = engine.getSSLParameters();
            // A client that picks h2 opens with the HTTP/2 preface, which the client filter reads.
            parameters.setApplicationProtocols(http2 ? H2_THEN_HTTP11 : HTTP11);
            parameters.setProtocols(settings.protocols().toArray(String[]::new));
            parameters.setCipherSuites(settings.ciphers().toArray(String[]::new));
            parameters.setUseCipherSuitesOrder(true);
            if (settings.clientAuth() == TlsSettings.ClientAuth.REQUIRED) {
                parameters.setNeedClientAuth(true);
            } else if (settings.clientAuth() == TlsSettings.ClientAuth.OPTIONAL) {
                parameters.setWantClientAuth(true);
            }
            engine.setSSLParameters(parameters);
            return engine;
        }

        @Override
        public SSLEngineConfigurator copy() {
            return new Engines(getSslContext(), settings, http2);
        }
    }
}
