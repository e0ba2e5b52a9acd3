package io.kodiak.client;

import io.kodiak.proxyprotocol.ClientAddresses;
import io.kodiak.proxyprotocol.ClientOrigin;
import io.kodiak.exchange.Admission;
import io.kodiak.exchange.ClientStream;
import io.kodiak.exchange.Exchange;
import io.kodiak.exchange.ProxyError;
import io.kodiak.h1.ConnectionSide;
import io.kodiak.h1.LocalAnswer;
import io.kodiak.h1.ResponseWriter;
import io.kodiak.http.RequestHead;
import io.kodiak.http.RequestMethod;
import io.kodiak.http.ResponseHead;
import io.kodiak.loop.EventLoop;
import io.kodiak.routing.HeaderRules;
import io.kodiak.routing.HeaderVariable;
import io.kodiak.tls.CertificateNames;
import io.kodiak.tls.SniKeyManager;
import io.kodiak.transport.WriteQueues;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.memory.MemoryManager;
import org.glassfish.grizzly.ssl.SSLUtils;

import javax.net.ssl.SSLEngine;

/**
 * The exchange's side of an HTTP/1.1 client connection: responses written as HTTP/1.1 bytes
 * ({@link ResponseWriter}) into the connection's write queue, what the exchange asks of the
 * connection itself (its reads, keep-alive, the tunnel, the end) passed to its {@link
 * ClientConnection}, and what the connection is (the client's address, TLS protocol and server name).
 */
final class Http1ClientStream extends ConnectionSide implements ClientStream {
    private final ClientConnection owner;
    private final ClientSettings settings;
    private final ResponseWriter responses;
    private String address;
    /** Made by the first exchange whose upstream connections open with a PROXY header. */
    private ClientOrigin origin;
    /** Null until asked, and always on a plain listener. */
    private String tlsProtocol;
    /** The TLS server name the client asked for ("" when none), read at the first request that needs it. */
    private String serverName;

    Http1ClientStream(ClientConnection owner, Connection<?> connection, ClientSettings settings, WriteQueues queues) {
        super(connection, queues);
        this.owner = owner;
        this.settings = settings;
        this.responses = new ResponseWriter(connection.getMemoryManager());
    }

    /** The next response answers {@code head}. */
    void start(RequestHead head) {
        responses.start(head.isHttp11(), head.method() == RequestMethod.HEAD, head.acceptsTrailers());
    }

    @Override
    public EventLoop loop() {
        return owner.loop();
    }

    @Override
    public MemoryManager memory() {
        return connection.getMemoryManager();
    }

    @Override
    public void sendContinue() {
        write(responses.continue100());
    }

    @Override
    public boolean sendInterim(ResponseHead interim) {
        Buffer out = responses.interim(interim);
        write(out);
        return out != null;
    }

    @Override
    public boolean sendHead(ResponseHead response, HeaderRules rules, HeaderVariable.Values values, boolean keepAllowed,
                            Buffer firstPiece, boolean last) {
        write(responses.head(response, rules, values, keepAllowed, firstPiece, last));
        return responses.keepsAlive();
    }

    @Override
    public void sendBody(Buffer piece, boolean last) {
        write(responses.body(piece, last));
    }

    @Override
    public void sendEnd(Buffer lastPiece, io.kodiak.http.Trailers trailers) {
        write(responses.end(lastPiece, trailers));
    }

    @Override
    public void relay(Buffer bytes) {
        write(bytes);
    }

    @Override
    public void sendLocal(ProxyError error, String detail, long requestNumber, boolean keep) {
        write(responses.local(error, detail, requestNumber, keep));
    }

    /** A head that cannot be accepted: the precise status, and the connection closes after it. */
    void refuse(ProxyError error, String detail) {
        write(LocalAnswer.of(error, detail, false, LocalAnswer.Persistence.CLOSE, 0, 0, memory()));
    }

    /** Kodiak's answer to a request it read and does not forward (no route, draining, too large...). */
    void answer(Admission.Decision decision, RequestHead head, boolean keep) {
        LocalAnswer.Persistence persistence = !keep ? LocalAnswer.Persistence.CLOSE
                : head.isHttp11() ? LocalAnswer.Persistence.NOTHING : LocalAnswer.Persistence.KEEP_ALIVE;
        write(LocalAnswer.of(decision.refusal(), null, head.method() == RequestMethod.HEAD, persistence,
                decision.requestNumberFor5xx(), decision.retryAfterSeconds(), memory()));
    }

    @Override
    public boolean mayKeepAlive() {
        return owner.mayKeepAlive();
    }

    @Override
    public void resumeReads() {
        owner.resumeReads();
    }

    @Override
    public void switchToTunnel(Exchange exchange) {
        owner.switchToTunnel(exchange);
    }

    @Override
    public void exchangeEnded(Exchange exchange, boolean keepAlive) {
        owner.exchangeEnded(exchange, keepAlive);
    }

    @Override
    public ClientOrigin origin() {
        if (origin == null) {
            origin = new ClientOrigin(ClientAddresses.origin(connection));
        }
        return origin;
    }

    /** The connection closed: upstream connections kept for it close too. */
    void closed() {
        if (origin != null) {
            origin.clientClosed();
        }
    }

    /** The client's IP address as text, for X-Forwarded-For and the access log. */
    @Override
    public String address() {
        if (address == null) {
            address = ClientAddresses.address(connection);
        }
        return address;
    }

    @Override
    public boolean misdirected(String host) {
        CertificateNames certificates = settings.certificates();
        if (host == null || !certificates.several()) {
            // No host (HTTP/1.0): nothing to be misdirected to; the host-less routes serve it.
            return false;
        }
        if (serverName == null) {
            SSLEngine engine = SSLUtils.getSSLEngine(connection);
            String asked = engine == null ? null : SniKeyManager.requestedName(engine.getSession());
            serverName = asked == null ? "" : asked;
        }
        return !certificates.sameCertificate(serverName.isEmpty() ? null : serverName, host);
    }

    /**
     * The TLS protocol the connection negotiated (TLSv1.3...), null on a plain listener. Read once:
     * the first request follows the handshake, and renegotiation is refused (see ServerTls).
     */
    @Override
    public String tlsProtocol() {
        if (settings.tls() && tlsProtocol == null) {
            SSLEngine engine = SSLUtils.getSSLEngine(connection);
            tlsProtocol = engine == null ? "-" : engine.getSession().getProtocol();
        }
        return tlsProtocol;
    }
}
