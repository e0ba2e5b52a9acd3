package io.kodiak.tls;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Which of a TLS listener's certificates serves a name: the sni entry naming it exactly, else one
 * with a matching "*.suffix" wildcard (one label), else the default pair. The handshake picks by
 * the client's TLS server name ({@link SniKeyManager}); the routing asks the same of a request's
 * Host, so that a request for a name another certificate serves is told apart (421).
 * Index 0 is the default pair, index i the i-th sni entry; {@code certificates} the certificate
 * file of each, so that two entries naming one file count as one certificate.
 */
public record CertificateNames(List<List<String>> bySni, List<Path> certificates) {
    public static final CertificateNames NONE = new CertificateNames(List.of(), List.of());

    public CertificateNames {
        bySni = List.copyOf(bySni);
        certificates = List.copyOf(certificates);
    }

    public static CertificateNames of(TlsSettings settings) {
        if (settings == null || settings.sni().isEmpty()) {
            return NONE;
        }
        List<List<String>> names = new ArrayList<>();
        List<Path> files = new ArrayList<>();
        files.add(settings.certificate().toAbsolutePath().normalize());
        for (TlsSettings.Sni sni : settings.sni()) {
            names.add(sni.names());
            files.add(sni.certificate().toAbsolutePath().normalize());
        }
        return new CertificateNames(names, files);
    }

    /** The names of {@code entries} past the default one, for the handshake's choice. */
    static CertificateNames ofEntries(List<SniKeyManager.Entry> entries) {
        List<List<String>> names = new ArrayList<>(entries.size());
        for (int i = 1; i < entries.size(); i++) {
            names.add(entries.get(i).names());
        }
        return new CertificateNames(names, List.of());
    }

    /** True when the listener has more than one certificate, so the name matters. */
    public boolean several() {
        return !bySni.isEmpty();
    }

    /** True when {@code a} and {@code b} (lower case; null: none) are served by the same certificate file. */
    public boolean sameCertificate(String a, String b) {
        int first = certificateFor(a);
        int second = certificateFor(b);
        return first == second || certificates.get(first).equals(certificates.get(second));
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
