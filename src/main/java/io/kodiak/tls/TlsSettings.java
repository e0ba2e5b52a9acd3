package io.kodiak.tls;

import java.nio.file.Path;
import java.util.List;

/**
 * A TLS listener's settings as validated from proxy.listener.tls: the default certificate and key,
 * the SNI entries, the protocols and cipher suites offered, and client certificates.
 */
public record TlsSettings(Path certificate, Path key, List<Sni> sni, List<String> protocols, List<String> ciphers,
                          ClientAuth clientAuth, Path clientCa, Provider provider) {

    /** Whose TLS: the JDK's own (JSSE), or BoringSSL behind the same API (Conscrypt). */
    public enum Provider {
        JSSE("jsse"), CONSCRYPT("conscrypt");

        private final String configName;

        Provider(String configName) {
            this.configName = configName;
        }

        public String configName() {
            return configName;
        }

        public static Provider parse(String name) {
            for (Provider value : values()) {
                if (value.configName.equals(name)) {
                    return value;
                }
            }
            return null;
        }

        /** The JSSE provider to ask for contexts: null for the JDK's default. */
        java.security.Provider instance() {
            return this == CONSCRYPT ? org.conscrypt.Conscrypt.newProvider() : null;
        }
    }

    /** Certificates for some names, picked by the client's SNI. */
    public record Sni(List<String> names, Path certificate, Path key) {
    }

    public enum ClientAuth {
        NONE("none"), OPTIONAL("optional"), REQUIRED("required");

        private final String configName;

        ClientAuth(String configName) {
            this.configName = configName;
        }

        public String configName() {
            return configName;
        }

        public static ClientAuth parse(String name) {
            for (ClientAuth value : values()) {
                if (value.configName.equals(name)) {
                    return value;
                }
            }
            return null;
        }
    }
}
