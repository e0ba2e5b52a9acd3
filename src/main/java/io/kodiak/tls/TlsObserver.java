package io.kodiak.tls;

import java.util.Locale;
import javax.net.ssl.SSLException;

/**
 * Hears every TLS handshake, on the I/O thread that ran it: implementations count and return
 * (metrics). {@code side} is "client" for the listener, "upstream" for https:// servers.
 */
public interface TlsObserver {
    TlsObserver NONE = new TlsObserver() {
        @Override
        public void handshake(String side, String protocol, String cipher) {
        }

        @Override
        public void handshakeFailed(String side, String reason) {
        }
    };

    void handshake(String side, String protocol, String cipher);

    void handshakeFailed(String side, String reason);

    /**
     * A failure's reason as a short, bounded label: the kind of its innermost cause
     * ("certificate", "no common protocol", ...), never its free-form message.
     */
    static String reason(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String kind = root.getClass().getSimpleName();
        if (root instanceof java.security.cert.CertificateException || kind.contains("CertPath") || kind.contains("Validator")) {
            return "certificate";
        }
        String message = String.valueOf(root.getMessage()).toLowerCase(Locale.ROOT);
        if (message.contains("protocol") || message.contains("no appropriate")) {
            return "protocol";
        }
        if (message.contains("cipher")) {
            return "cipher";
        }
        if (message.contains("certificate") || message.contains("bad_certificate") || message.contains("no subject alternative")) {
            return "certificate";
        }
        if (root instanceof SSLException) {
            return "handshake";
        }
        return "io";
    }
}
