package io.kodiak.tls;

import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A certificate chain (leaf first) and its private key, read from PEM files with BouncyCastle:
 * the key as PKCS#8, PKCS#1 RSA or SEC1 EC. {@link #load} refuses a pair that cannot serve: a file
 * that is missing or holds no certificate or key, or a key that is not the leaf's.
 */
public record PemMaterial(List<X509Certificate> chain, PrivateKey key) {

    /** Why material could not be loaded, in words for the configuration error. */
    public static final class Unusable extends Exception {
        public Unusable(String message) {
            super(message);
        }
    }

    public static PemMaterial load(Path certificate, Path key) throws Unusable {
        List<X509Certificate> chain = certificates(certificate);
        if (chain.isEmpty()) {
            throw new Unusable("no PEM certificate in " + certificate);
        }
        PrivateKey privateKey = privateKey(key);
        if (!matches(privateKey, chain.get(0))) {
            throw new Unusable("the key in " + key + " is not the key of the certificate in " + certificate);
        }
        return new PemMaterial(List.copyOf(chain), privateKey);
    }

    /** Every certificate in a PEM file, in order (a chain, or a set of trusted CAs). */
    public static List<X509Certificate> certificates(Path file) throws Unusable {
        List<X509Certificate> found = new ArrayList<>();
        JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.US_ASCII); PEMParser pem = new PEMParser(reader)) {
            for (Object item; (item = pem.readObject()) != null; ) {
                if (item instanceof X509CertificateHolder holder) {
                    found.add(converter.getCertificate(holder));
                }
            }
        } catch (IOException | CertificateException | RuntimeException e) {
            throw new Unusable("cannot read PEM certificates from " + file + " (" + e.getMessage() + ")");
        }
        return found;
    }

    private static PrivateKey privateKey(Path file) throws Unusable {
        JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.US_ASCII); PEMParser pem = new PEMParser(reader)) {
            for (Object item; (item = pem.readObject()) != null; ) {
                if (item instanceof PrivateKeyInfo pkcs8) {
                    return converter.getPrivateKey(pkcs8);
                }
                if (item instanceof PEMKeyPair pair) {
                    // PKCS#1 RSA or SEC1 EC; a SEC1 key may omit its public half, which is not needed here.
                    return converter.getPrivateKey(pair.getPrivateKeyInfo());
                }
            }
        } catch (IOException | RuntimeException e) {
            throw new Unusable("cannot read a PEM private key from " + file + " (" + e.getMessage() + ")");
        }
        throw new Unusable("no unencrypted PEM private key (PKCS#8, PKCS#1 RSA or SEC1 EC) in " + file);
    }

    /** Signs a few bytes with the key and checks them with the certificate's public key. */
    private static boolean matches(PrivateKey key, X509Certificate leaf) {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "Ed25519", "EdDSA" -> "Ed25519";
            default -> null;
        };
        if (algorithm == null) {
            return false;
        }
        try {
            byte[] probe = "kodiak".getBytes(StandardCharsets.US_ASCII);
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(leaf.getPublicKey());
            verifier.update(probe);
            return verifier.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    /**
     * The same material with its key turned into {@code provider}'s own form, once, here. Conscrypt
     * takes a key of the JDK's form by re-parsing its PKCS#8 encoding into BoringSSL's on every
     * handshake, and leaves each parsed copy to a finalizer (README, "Conscrypt's key, turned into
     * its own form once"); one of its own is handed over as it is. The key stays as loaded where
     * the provider has no key factory for its algorithm, or when {@code provider} is null (the JDK's).
     */
    public PemMaterial keyFor(Provider provider) {
        if (provider == null) {
            return this;
        }
        try {
            return new PemMaterial(chain, (PrivateKey) KeyFactory.getInstance(key.getAlgorithm(), provider).translateKey(key));
        } catch (GeneralSecurityException | RuntimeException notItsKind) {
            // No factory for the algorithm, or one that cannot take this key: the key as loaded
            // still serves, as it did before this translation.
            return this;
        }
    }

    public X509Certificate leaf() {
        return chain.get(0);
    }

    /** True when the leaf is no longer valid at {@code now}. */
    public boolean expiredAt(Instant now) {
        return leaf().getNotAfter().toInstant().isBefore(now);
    }
}
