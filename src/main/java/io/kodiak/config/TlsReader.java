package io.kodiak.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueType;
import io.kodiak.tls.PemMaterial;
import io.kodiak.tls.TlsSettings;
import io.kodiak.tls.UpstreamTlsSettings;

import javax.net.ssl.SSLContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;

/**
 * Reads proxy.listener.tls: present, the listener speaks TLS. Every certificate and key is loaded
 * here, so a missing or unreadable file, a key that is not its certificate's, or an expired
 * certificate stops the start naming the key; protocols older than TLS 1.2 are refused.
 */
final class TlsReader {
    private static final Set<String> KEYS = Set.of("certificate", "key", "protocols", "ciphers", "sni", "client-auth",
            "client-ca", "provider");
    static final List<String> PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");
    /** Mozilla's "intermediate" configuration (version 5.7), in the JDK's names: TLS 1.3 suites, then TLS 1.2 AEAD with forward secrecy. */
    static final List<String> CIPHERS = List.of(
            "TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256",
            "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
            "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
            "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
            "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_DHE_RSA_WITH_AES_256_GCM_SHA384",
            "TLS_DHE_RSA_WITH_CHACHA20_POLY1305_SHA256");

    private final ConfigReader keys;
    /** Certificates that expire within 14 days: started with, and warned about. */
    private final List<String> warnings;

    TlsReader(ConfigReader keys, List<String> warnings) {
        this.keys = keys;
        this.warnings = warnings;
    }

    /** Null when {@code at} is absent: no TLS. */
    TlsSettings read(String at) {
        if (!keys.has(at)) {
            return null;
        }
        Config root = keys.config();
        if (root.getValue(at).valueType() != ConfigValueType.OBJECT) {
            keys.problem(at, keys.render(at), "an object { certificate = \"...pem\", key = \"...key\" }");
            return null;
        }
        for (String k : root.getObject(at).keySet()) {
            if (!KEYS.contains(k)) {
                keys.problem(at + "." + k, root.getObject(at).get(k).render(ConfigProblem.SHOWN), "one of the keys " + KEYS);
            }
        }
        Path certificate = file(at + ".certificate");
        Path key = file(at + ".key");
        pair(at + ".certificate", certificate, key);
        List<TlsSettings.Sni> sni = sni(at + ".sni");
        List<String> protocols = list(at + ".protocols", PROTOCOLS, PROTOCOLS, "TLSv1.3 and/or TLSv1.2 (nothing older is accepted)");
        List<String> ciphers = list(at + ".ciphers", CIPHERS, supportedSuites(), "cipher suites this JDK supports, in its names");
        TlsSettings.ClientAuth auth = choice(at + ".client-auth", TlsSettings.ClientAuth::parse, "none, optional or required",
                TlsSettings.ClientAuth.NONE, "none");
        Path clientCa = null;
        if (auth != TlsSettings.ClientAuth.NONE) {
            clientCa = file(at + ".client-ca");
            if (clientCa != null) {
                try {
                    if (PemMaterial.certificates(clientCa).isEmpty()) {
                        keys.problem(at + ".client-ca", clientCa.toString(), "a PEM file with the CA certificates clients' certificates are signed by");
                    }
                } catch (PemMaterial.Unusable e) {
                    keys.problem(at + ".client-ca", clientCa.toString(), "a readable PEM file of CA certificates (" + e.getMessage() + ")");
                }
            }
        }
        TlsSettings.Provider provider = choice(at + ".provider", TlsSettings.Provider::parse, "jsse or conscrypt",
                TlsSettings.Provider.JSSE, "jsse");
        if (!provider.available()) {
            keys.problem(at + ".provider", keys.render(at + ".provider"), "jsse (Conscrypt's native library does not"
                    + " load here: " + provider.unavailableBecause() + "; its jar has builds for x86_64 Linux with glibc,"
                    + " macOS and Windows)");
            provider = TlsSettings.Provider.JSSE;
        }
        if (certificate == null || key == null) {
            return null;
        }
        return new TlsSettings(certificate, key, sni, protocols, ciphers, auth, clientCa, provider);
    }

    /**
     * One of a few names at {@code key}: its value, or {@code absent} (named {@code absentName})
     * when the key is absent or, with a problem noted, not a string or not one of the names.
     */
    private <E> E choice(String key, Function<String, E> parse, String expected, E absent, String absentName) {
        if (!keys.has(key)) {
            return absent;
        }
        E value = parse.apply(keys.read(key, keys.config()::getString, expected, absentName));
        if (value == null) {
            keys.problem(key, keys.render(key), expected);
            return absent;
        }
        return value;
    }

    /**
     * proxy.upstream.tls ({@code inherited} null: reference.conf gives trust and verify-hostname),
     * or a group's tls, where each key left out is {@code inherited}'s (proxy.upstream.tls's as read).
     */
    UpstreamTlsSettings readUpstream(String at, UpstreamTlsSettings inherited) {
        Config root = keys.config();
        Path trust = inherited == null || keys.has(at + ".trust") ? trust(at + ".trust") : inherited.trust();
        boolean verify = inherited == null || keys.has(at + ".verify-hostname")
                ? keys.read(at + ".verify-hostname", root::getBoolean, "true or false", true)
                : inherited.verifyHostname();
        Path certificate = inherited == null ? null : inherited.certificate();
        Path key = inherited == null ? null : inherited.key();
        if (keys.has(at + ".certificate") || keys.has(at + ".key")) {
            // Both, or neither: a certificate is never paired with a key from elsewhere.
            certificate = file(at + ".certificate");
            key = file(at + ".key");
            pair(at + ".certificate", certificate, key);
        }
        String serverName = inherited == null ? null : inherited.serverName();
        if (keys.has(at + ".server-name")) {
            serverName = keys.read(at + ".server-name", root::getString, "a host name", "").toLowerCase(Locale.ROOT);
            if (!serverName.matches("[a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*")) {
                keys.problem(at + ".server-name", keys.render(at + ".server-name"), "a host name to send as SNI");
                serverName = null;
            }
        }
        return new UpstreamTlsSettings(trust, verify, certificate, key, serverName);
    }

    /** A trust setting: null for "system" (the JDK's CAs), else a readable PEM file of CA certificates. */
    private Path trust(String key) {
        String text = keys.read(key, keys.config()::getString, "\"system\" or a PEM file of CA certificates", "system");
        if (text.equals("system")) {
            return null;
        }
        Path trust = readable(key, text);
        if (trust != null) {
            try {
                if (PemMaterial.certificates(trust).isEmpty()) {
                    keys.problem(key, text, "a PEM file with at least one CA certificate");
                }
            } catch (PemMaterial.Unusable e) {
                keys.problem(key, text, "a readable PEM file of CA certificates (" + e.getMessage() + ")");
            }
        }
        return trust;
    }

    private List<TlsSettings.Sni> sni(String key) {
        if (!keys.has(key)) {
            return List.of();
        }
        List<TlsSettings.Sni> entries = new ArrayList<>();
        List<? extends Config> list;
        try {
            list = keys.config().getConfigList(key);
        } catch (com.typesafe.config.ConfigException e) {
            keys.problem(key, keys.render(key), "a list of { names = [...], certificate = \"...\", key = \"...\" }");
            return List.of();
        }
        for (int i = 0; i < list.size(); i++) {
            String at = key + "[" + i + "]";
            Config entry = list.get(i);
            List<String> names;
            try {
                names = entry.getStringList("names").stream().map(n -> n.toLowerCase(Locale.ROOT)).toList();
            } catch (com.typesafe.config.ConfigException e) {
                keys.problem(at + ".names", entry.hasPath("names") ? entry.getValue("names").render(ConfigProblem.SHOWN) : "(missing)",
                        "a list of host names, each exact or *.suffix");
                continue;
            }
            if (names.isEmpty() || names.stream().anyMatch(n -> !n.matches("(\\*\\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*"))) {
                keys.problem(at + ".names", entry.getValue("names").render(ConfigProblem.SHOWN), "host names, each exact or *.suffix");
                continue;
            }
            Path certificate = entryFile(entry, at, "certificate");
            Path k = entryFile(entry, at, "key");
            pair(at + ".certificate", certificate, k);
            if (certificate != null && k != null) {
                entries.add(new TlsSettings.Sni(names, certificate, k));
            }
        }
        return entries;
    }

    private Path entryFile(Config entry, String at, String name) {
        if (!entry.hasPath(name) || entry.getValue(name).valueType() != ConfigValueType.STRING) {
            keys.problem(at + "." + name, entry.hasPath(name) ? entry.getValue(name).render(ConfigProblem.SHOWN) : "(missing)", "a PEM file path");
            return null;
        }
        return readable(at + "." + name, entry.getString(name));
    }

    private Path file(String key) {
        if (!keys.has(key)) {
            keys.problem(key, "(missing)", "a PEM file path");
            return null;
        }
        return readable(key, keys.read(key, keys.config()::getString, "a PEM file path", ""));
    }

    private Path readable(String key, String value) {
        Path path = Path.of(value);
        if (!Files.isRegularFile(path) || !Files.isReadable(path)) {
            keys.problem(key, value, "a readable PEM file");
            return null;
        }
        return path;
    }

    /** Loads the pair to check it now: it must be usable and not expired; expiring soon is a warning. */
    private void pair(String key, Path certificate, Path privateKey) {
        if (certificate == null || privateKey == null) {
            return;
        }
        try {
            PemMaterial material = PemMaterial.load(certificate, privateKey);
            Instant now = Instant.now();
            if (material.expiredAt(now)) {
                keys.problem(key, certificate.toString(), "a certificate still valid (it expired " + material.leaf().getNotAfter().toInstant() + ")");
            } else if (material.expiredAt(now.plus(java.time.Duration.ofDays(14)))) {
                warnings.add(keys.name(key) + " = " + certificate + ": the certificate expires " + material.leaf().getNotAfter().toInstant()
                        + ", within 14 days");
            }
        } catch (PemMaterial.Unusable e) {
            keys.problem(key, certificate.toString(), "a certificate and key that belong together (" + e.getMessage() + ")");
        }
    }

    private List<String> list(String key, List<String> absent, List<String> allowed, String expected) {
        if (!keys.has(key)) {
            return absent;
        }
        List<String> values;
        try {
            values = keys.config().getStringList(key);
        } catch (com.typesafe.config.ConfigException e) {
            keys.problem(key, keys.render(key), "a list of " + expected);
            return absent;
        }
        if (values.isEmpty() || !allowed.containsAll(values)) {
            keys.problem(key, keys.render(key), expected);
            return absent;
        }
        return List.copyOf(values);
    }

    private static List<String> supportedSuites() {
        try {
            return Arrays.asList(SSLContext.getDefault().getSupportedSSLParameters().getCipherSuites());
        } catch (NoSuchAlgorithmException e) {
            return CIPHERS;
        }
    }
}
