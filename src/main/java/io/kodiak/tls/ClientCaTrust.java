package io.kodiak.tls;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;
import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;

/**
 * The listener's check of client certificates, against CAs that can be replaced while it runs
 * (client-ca re-read like the certificates): a client's certificate is checked against the CAs
 * current when it arrives (a handshake under way during a change may have been sent the previous
 * list of CA names).
 * The JSSE context keeps the trust manager it was made with, so the replacing happens here, in the
 * one it holds.
 */
final class ClientCaTrust extends X509ExtendedTrustManager {
    private volatile X509ExtendedTrustManager current;

    ClientCaTrust(X509ExtendedTrustManager first) {
        this.current = first;
    }

    void replace(X509ExtendedTrustManager next) {
        current = next;
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
        current.checkClientTrusted(chain, authType, engine);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        current.checkClientTrusted(chain, authType, socket);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        current.checkClientTrusted(chain, authType);
    }

    /** Never a server's: the listener only checks clients. */
    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
        throw new CertificateException("the listener does not check server certificates");
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        throw new CertificateException("the listener does not check server certificates");
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        throw new CertificateException("the listener does not check server certificates");
    }

    /** The CA names sent in the certificate request. */
    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return current.getAcceptedIssuers();
    }
}
