package io.kodiak.listener;

import io.kodiak.client.ClientFilter;
import io.kodiak.client.ClientSettings;
import io.kodiak.h2.Http2Observer;
import io.kodiak.h2.Http2Settings;
import io.kodiak.client.IdleClock;
import io.kodiak.config.ClientHalfClose;
import io.kodiak.config.ProxyConfig;
import io.kodiak.exchange.Admission;
import io.kodiak.proxyprotocol.ProxyProtocolCounts;
import io.kodiak.proxyprotocol.ProxyProtocolFilter;
import io.kodiak.tls.CertificateWatch;
import io.kodiak.tls.PemMaterial;
import io.kodiak.tls.CertificateNames;
import io.kodiak.tls.ServerTls;
import io.kodiak.tls.TlsObserver;
import io.kodiak.transport.HalfCloseTransportFilter;
import org.glassfish.grizzly.filterchain.FilterChain;
import org.glassfish.grizzly.filterchain.FilterChainBuilder;
import org.glassfish.grizzly.filterchain.TransportFilter;
import org.glassfish.grizzly.nio.transport.TCPNIOBindingHandler;
import org.glassfish.grizzly.nio.transport.TCPNIOServerConnection;
import org.glassfish.grizzly.nio.transport.TCPNIOTransport;
import org.glassfish.grizzly.utils.DelayedExecutor;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * One listening address: its chain (the transport, TLS where configured, Kodiak's server side),
 * its certificate watch, and once bound, its socket. A reload that changes an address's settings
 * makes a new Binding that takes over the socket ({@link #takeOver}): connections accepted from
 * then on get the new chain, those already open keep the one they were accepted with.
 */
final class Binding {
    /** What every address's chain is built with: the listener's, the same for each address and each reload. */
    record Wiring(Admission admission, IdleClock idleClock, DelayedExecutor timers, TlsObserver tlsObserver,
                  Http2Observer http2Observer, ProxyProtocolCounts proxyProtocol) {
    }

    private final ProxyConfig.Endpoint endpoint;
    private final ClientSettings client;
    /** Null without TLS. */
    private final ServerTls tls;
    private final FilterChain chain;
    /** Null without TLS. */
    private final CertificateWatch certificates;
    private TCPNIOServerConnection server;

    /**
     * {@code sameTls}: the binding whose TLS context to keep (same TLS settings, so its sessions
     * stay resumable), or null to read the certificates anew.
     */
    private Binding(ProxyConfig.Endpoint endpoint, ClientSettings client, Binding sameTls, Wiring wiring)
            throws PemMaterial.Unusable {
        this.endpoint = endpoint;
        this.client = client;
        // Grizzly's transport filter closes a connection when its client's input ends; this one
        // lets a half-closed client's request be answered.
        FilterChainBuilder builder = FilterChainBuilder.stateless()
                .add(client.answerHalfClosed() ? new HalfCloseTransportFilter() : new TransportFilter());
        if (endpoint.proxyProtocol()) {
            // Below TLS: the balancer's header comes before the client's handshake.
            builder.add(new ProxyProtocolFilter(wiring.proxyProtocol(), endpoint.proxyProtocolTrusted()));
        }
        if (endpoint.tls() != null) {
            // TLS under Kodiak's codec: the codec reads and writes plain bytes either way.
            tls = sameTls != null ? sameTls.tls : serverTls(endpoint);
            builder.add(tls.filter(wiring.tlsObserver(), client.http2() != null));
            // The same files, the same watch: it knows what it last read, so a certificate
            // rewritten just before the reload is still seen as changed.
            certificates = sameTls != null ? sameTls.certificates : new CertificateWatch(tls, endpoint.tls(), wiring.timers());
        } else {
            tls = null;
            certificates = null;
        }
        this.chain = builder.add(new ClientFilter(client, wiring.admission(), wiring.idleClock(), wiring.http2Observer())).build();
    }

    static Binding create(ProxyConfig.Endpoint endpoint, ProxyConfig.Listener settings, Wiring wiring)
            throws PemMaterial.Unusable {
        return new Binding(endpoint, clientSettings(endpoint, settings), null, wiring);
    }

    /**
     * This address under new settings: itself when nothing it uses changed, else a binding to
     * take over its socket, keeping its TLS context when the TLS settings are the same.
     */
    Binding reconfigured(ProxyConfig.Endpoint next, ProxyConfig.Listener settings, Wiring wiring)
            throws PemMaterial.Unusable {
        ClientSettings nextClient = clientSettings(next, settings);
        boolean sameTls = Objects.equals(endpoint.tls(), next.tls());
        if (sameTls && nextClient.equals(client) && endpoint.key().equals(next.key())
                && endpoint.proxyProtocol() == next.proxyProtocol()
                && endpoint.proxyProtocolTrusted().equals(next.proxyProtocolTrusted())) {
            return this;
        }
        return new Binding(next, nextClient, sameTls ? this : null, wiring);
    }

    private static ClientSettings clientSettings(ProxyConfig.Endpoint endpoint, ProxyConfig.Listener settings) {
        return new ClientSettings(settings.maxHeaderSize(), settings.persistentConnections(),
                settings.maxRequestsPerConnection(), Math.max(1, settings.idleTimeout().toSeconds()) * 1000L,
                settings.clientHalfClose() == ClientHalfClose.ANSWER,
                endpoint.tls() != null, CertificateNames.of(endpoint.tls()),
                settings.http2() == null ? null : new Http2Settings(settings.http2().maxConcurrentStreams(),
                        settings.http2().initialWindowSize(), settings.http2().maxFrameSize(), settings.maxHeaderSize()));
    }

    /** Loaded when the configuration was read; a file changed since then and broken now is named here. */
    private static ServerTls serverTls(ProxyConfig.Endpoint endpoint) throws PemMaterial.Unusable {
        try {
            return ServerTls.create(endpoint.tls());
        } catch (PemMaterial.Unusable e) {
            throw new PemMaterial.Unusable(endpoint.key() + ".tls: " + e.getMessage());
        }
    }

    /** The same address: a reload keeps its socket (port 0, in tests, matches the port it was given). */
    boolean sameAddress(ProxyConfig.Endpoint other) {
        return endpoint.host().equals(other.host()) && endpoint.port() == other.port();
    }

    /** host:port as configured, for messages. */
    String address() {
        return endpoint.host() + ":" + endpoint.port();
    }

    ProxyConfig.Endpoint endpoint() {
        return endpoint;
    }

    FilterChain chain() {
        return chain;
    }

    TCPNIOServerConnection server() {
        return server;
    }

    boolean bound() {
        return server != null;
    }

    int port() {
        return ((InetSocketAddress) server.getLocalAddress()).getPort();
    }

    void bind(TCPNIOTransport transport, int backlog) throws IOException {
        try {
            server = TCPNIOBindingHandler.builder(transport).processor(chain).build()
                    .bind(new InetSocketAddress(endpoint.host(), endpoint.port()), backlog);
        } catch (IOException e) {
            throw new IOException(endpoint.key() + " " + address() + ": " + e.getMessage(), e);
        }
    }

    /** Takes {@code previous}'s socket: the connections it accepts from now on get this binding's chain. */
    void takeOver(Binding previous) {
        if (previous.certificates != certificates) {
            previous.stopWatch();
            startWatch();
        }
        server = previous.server;
        server.setProcessor(chain);
    }

    void startWatch() {
        if (certificates != null) {
            certificates.start();
        }
    }

    void stopWatch() {
        if (certificates != null) {
            certificates.stop();
        }
    }
}
