package io.kodiak.tls;

import org.conscrypt.Conscrypt;

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

        /**
         * Descriptors each connection's engine holds besides the socket: a Conscrypt engine
         * keeps a pipe (two) for as long as it lives; the JDK's, none.
         */
        public int descriptorsPerEngine() {
            return this == CONSCRYPT ? 2 : 0;
        }

        public static Provider parse(String name) {
            for (Provider value : values()) {
                if (value.configName.equals(name)) {
                    return value;
                }
            }
            return null;
        }

        /**
         * False where the provider cannot run: Conscrypt's jar carries BoringSSL for x86_64 Linux
         * (glibc), x86_64 macOS and Windows only, and unpacks it into java.io.tmpdir, which must
         * allow executing it.
         */
        public boolean available() {
            return this != CONSCRYPT || Conscrypt.isAvailable();
        }

        /** Why {@link #available()} is false, as the provider reports it. */
        public String unavailableBecause() {
            try {
                Conscrypt.checkAvailability();
                return "available";
            } catch (Throwable loadError) {
                return String.valueOf(loadError.getMessage());
            }
        }

        /** The JSSE provider to ask for contexts: null for the JDK's default. */
        java.security.Provider instance() throws PemMaterial.Unusable {
            if (!available()) {
                throw new PemMaterial.Unusable("the " + configName + " provider cannot load its native library here ("
                        + unavailableBecause() + ")");
            }
            return this == CONSCRYPT ? Conscrypt.newProvider() : null;
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
