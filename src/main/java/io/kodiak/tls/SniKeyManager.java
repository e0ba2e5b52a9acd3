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
 * certificates of new handshakes only; connections already open keep theirs, and a handshake
 * under way when it happens finishes with the pair it chose.
 */
public final class SniKeyManager extends X509ExtendedKeyManager {
    /** One certificate and the names it serves; the default entry has none. */
    public record Entry(List<String> names, PemMaterial material) {
    }

    /**
     * One set of entries and its generation; the set it replaced stays reachable, so that a
     * handshake that chose an alias just before a reload still gets that alias's own key and
     * chain (the JDK asks for the alias, the key and the chain in three calls).
     */
    private record Generation(int number, List<Entry> entries, Generation previous, CertificateNames names) {
        Generation(int number, List<Entry> entries, Generation previous) {
            this(number, entries, previous, CertificateNames.ofEntries(entries));
        }
    }

    private static final String DEFAULT = "default";
    private volatile Generation current;

    public SniKeyManager(List<Entry> entries) {
        this.current = new Generation(0, List.copyOf(entries), null);
    }

    /** New handshakes use {@code replacement} from now on. Index 0 is the default. */
    public synchronized void replace(List<Entry> replacement) {
        Generation last = current;
        // Only the last set is kept: a handshake is shorter than the time between two reloads.
        current = new Generation(last.number() + 1, List.copyOf(replacement), new Generation(last.number(), last.entries(), null));
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
        Generation set = current;
        int chosen = 0;
        SSLSession handshake = engine == null ? null : engine.getHandshakeSession();
        if (handshake instanceof ExtendedSSLSession session) {
            chosen = set.names().certificateFor(requestedName(session.getRequestedServerNames()));
        }
        return keyFits(set.entries().get(chosen).material().key().getAlgorithm(), keyType) ? alias(chosen, set) : null;
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
        return CertificateNames.ofEntries(entries).certificateFor(name);
    }

    /** The server name the client asked for in its handshake (lower case), or null. */
    public static String requestedName(SSLSession session) {
        return session instanceof ExtendedSSLSession extended ? requestedName(extended.getRequestedServerNames()) : null;
    }

    /** The JDK asks per signature scheme: an RSA key serves RSA and RSASSA-PSS, an EC key EC. */
    private static boolean keyFits(String keyAlgorithm, String keyType) {
        return keyType == null || keyType.equals(keyAlgorithm) || keyAlgorithm.equals("RSA") && keyType.equals("RSASSA-PSS");
    }

    /** An alias names the entry and the generation of its set, so a reload mid-handshake cannot mix two pairs. */
    private static String alias(int index, Generation set) {
        return (index == 0 ? DEFAULT : "sni-" + index) + "@" + set.number();
    }

    /** The entry an alias names, in its own generation; null for an alias this manager never gave. */
    private Entry entry(String alias) {
        int at = alias.indexOf('@');
        if (at < 0) {
            return null;
        }
        int number;
        int index;
        try {
            number = Integer.parseInt(alias.substring(at + 1));
            String name = alias.substring(0, at);
            index = name.equals(DEFAULT) ? 0 : Integer.parseInt(name.substring(4));
        } catch (RuntimeException notOurs) {
            return null;
        }
        for (Generation set = current; set != null; set = set.previous()) {
            if (set.number() == number) {
                return index < set.entries().size() ? set.entries().get(index) : null;
            }
        }
        return null;
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
        Entry entry = alias == null ? null : entry(alias);
        return entry == null ? null : entry.material().chain().toArray(X509Certificate[]::new);
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
        Entry entry = alias == null ? null : entry(alias);
        return entry == null ? null : entry.material().key();
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
        return new String[] {alias(0, current)};
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
        return alias(0, current);
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
