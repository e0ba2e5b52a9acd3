package io.kodiak.tls;

import java.util.ArrayList;
import java.util.List;

/**
 * Which of a TLS listener's certificates serves a name: the sni entry naming it exactly, else one
 * with a matching "*.suffix" wildcard (one label), else the default pair. The handshake picks by
 * the client's TLS server name ({@link SniKeyManager}); the routing asks the same of a request's
 * Host, so that a request for a name another certificate serves is told apart (421).
 * Index 0 is the default pair, index i the i-th sni entry.
 */
public record CertificateNames(List<List<String>> bySni) {
    public static final CertificateNames NONE = new CertificateNames(List.of());

    public CertificateNames {
        bySni = List.copyOf(bySni);
    }

    public static CertificateNames of(TlsSettings settings) {
        if (settings == null || settings.sni().isEmpty()) {
            return NONE;
        }
        List<List<String>> names = new ArrayList<>();
        for (TlsSettings.Sni sni : settings.sni()) {
            names.add(sni.names());
        }
        return new CertificateNames(names);
    }

    /** True when the listener has more than one certificate, so the name matters. */
    public boolean several() {
        return !bySni.isEmpty();
    }

    /** The certificate for {@code name} (lower case; null: none asked, the default). */
    public int certificateFor(String name) {
        if (name == null) {
            return 0;
        }
        for (int i = 0; i < bySni.size(); i++) {
            if (bySni.get(i).contains(name)) {
                return i + 1;
            }
        }
        int dot = name.indexOf('.');
        if (dot > 0) {
            String wildcard = "*" + name.substring(dot);
            for (int i = 0; i < bySni.size(); i++) {
                if (bySni.get(i).contains(wildcard)) {
                    return i + 1;
                }
            }
        }
        return 0;
    }
}
