package io.kodiak.tls;

import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;
import javax.net.ssl.X509ExtendedKeyManager;
import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Locale;

/**
 * The listener's certificates, chosen per handshake by the name the client asked for (SNI): an
 * entry whose names include it exactly, else one with a matching "*.suffix" wildcard (one label),
 * else the default pair. The set is replaced whole by {@link #replace}, so a reload changes the
 * certificates of new handshakes only; connections already open keep theirs.
 */
public final class SniKeyManager extends X509ExtendedKeyManager {
    /** One certificate and the names it serves; the default entry has none. */
    public record Entry(List<String> names, PemMaterial material) {
    }

    private static final String DEFAULT = "default";
    private volatile List<Entry> entries;

    public SniKeyManager(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    /** New handshakes use {@code replacement} from now on. Index 0 is the default. */
    public void replace(List<Entry> replacement) {
        entries = List.copyOf(replacement);
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
        List<Entry> current = entries;
        int chosen = 0;
        SSLSession handshake = engine == null ? null : engine.getHandshakeSession();
        if (handshake instanceof ExtendedSSLSession session) {
            chosen = byName(current, requestedName(session.getRequestedServerNames()));
        }
        return keyFits(current.get(chosen).material().key().getAlgorithm(), keyType) ? alias(chosen, current) : null;
    }

    private static String requestedName(List<SNIServerName> names) {
        for (SNIServerName name : names) {
            if (name instanceof SNIHostName host) {
                return host.getAsciiName().toLowerCase(Locale.ROOT);
            }
        }
        return null;
    }

    /** The entry for {@code name}: exact first, then the wildcard, else 0 (the default). */
    static int byName(List<Entry> entries, String name) {
        if (name == null) {
            return 0;
        }
        for (int i = 1; i < entries.size(); i++) {
            if (entries.get(i).names().contains(name)) {
                return i;
            }
        }
        int dot = name.indexOf('.');
        if (dot > 0) {
            String wildcard = "*" + name.substring(dot);
            for (int i = 1; i < entries.size(); i++) {
                if (entries.get(i).names().contains(wildcard)) {
                    return i;
                }
            }
        }
        return 0;
    }

    /** The JDK asks per signature scheme: an RSA key serves RSA and RSASSA-PSS, an EC key EC. */
    private static boolean keyFits(String keyAlgorithm, String keyType) {
        return keyType == null || keyType.equals(keyAlgorithm) || keyAlgorithm.equals("RSA") && keyType.equals("RSASSA-PSS");
    }

    /** An alias names the entry and the set it came from, so a reload mid-handshake cannot mix two pairs. */
    private static String alias(int index, List<Entry> set) {
        return (index == 0 ? DEFAULT : "sni-" + index) + "@" + System.identityHashCode(set);
    }

    private Entry entry(String alias) {
        List<Entry> current = entries;
        int at = alias.indexOf('@');
        if (at < 0 || Integer.parseInt(alias.substring(at + 1)) != System.identityHashCode(current)) {
            // From a set replaced since: the default of the current one (a handshake in progress
            // during a reload gets a valid pair, never half of each).
            return current.get(0);
        }
        String name = alias.substring(0, at);
        return name.equals(DEFAULT) ? current.get(0) : current.get(Integer.parseInt(name.substring(4)));
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
        return alias == null ? null : entry(alias).material().chain().toArray(X509Certificate[]::new);
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
        return alias == null ? null : entry(alias).material().key();
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
        return new String[] {alias(0, entries)};
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
        return alias(0, entries);
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
        return null;
    }

    @Override
    public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
        return null;
    }
}
