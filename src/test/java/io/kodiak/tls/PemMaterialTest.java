package io.kodiak.tls;

import org.conscrypt.Conscrypt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class PemMaterialTest {
    @TempDir
    Path dir;

    /**
     * Conscrypt re-parses a key of the JDK's form on every handshake; the listener's keys are put in
     * its own form once, at load. Each must still be the certificate's key (a signature made with it
     * verifies), for EC and RSA, for the default pair and an SNI pair.
     */
    @Test
    void aConscryptListenerHoldsItsKeysInConscryptsOwnForm() throws Exception {
        assumeTrue(Conscrypt.isAvailable(), "Conscrypt has no native build for this platform");
        TestCertificates certs = new TestCertificates(dir);
        TestCertificates.Issued ec = certs.leaf("ec", Duration.ofDays(30), "ec.test");
        TestCertificates.Issued rsa = certs.rsaLeaf("rsa", Duration.ofDays(30), "rsa.test");
        TlsSettings settings = new TlsSettings(ec.certificateFile(), ec.keyFile(),
                List.of(new TlsSettings.Sni(List.of("rsa.test"), rsa.certificateFile(), rsa.keyFile())),
                List.of("TLSv1.3"), List.of("TLS_AES_128_GCM_SHA256"), TlsSettings.ClientAuth.NONE, null,
                TlsSettings.Provider.CONSCRYPT);

        List<SniKeyManager.Entry> entries = ServerTls.entries(settings, TlsSettings.Provider.CONSCRYPT.instance());

        assertEquals(2, entries.size());
        for (SniKeyManager.Entry entry : entries) {
            PrivateKey key = entry.material().key();
            assertTrue(key.getClass().getName().startsWith("org.conscrypt."), "in Conscrypt's form: " + key.getClass());
            assertTrue(signsFor(key, entry.material().leaf()), "still the certificate's key: " + key.getAlgorithm());
        }
    }

    @Test
    void theJdksOwnProviderTakesTheKeyAsLoaded() throws Exception {
        TestCertificates.Issued ec = new TestCertificates(dir).leaf("ec", Duration.ofDays(30), "ec.test");
        PemMaterial material = PemMaterial.load(ec.certificateFile(), ec.keyFile());
        assertSame(material, material.keyFor(null));
    }

    /** Conscrypt 2.5.2 has no key factory for Ed25519: such a key is handed over as loaded, as before. */
    @Test
    void aKeyConscryptCannotTakeInItsOwnFormStaysAsLoaded() throws Exception {
        assumeTrue(Conscrypt.isAvailable(), "Conscrypt has no native build for this platform");
        TestCertificates.Issued ec = new TestCertificates(dir).leaf("ec", Duration.ofDays(30), "ec.test");
        PemMaterial material = new PemMaterial(List.of(ec.certificate()),
                KeyPairGenerator.getInstance("Ed25519").generateKeyPair().getPrivate());
        assertSame(material, material.keyFor(Conscrypt.newProvider()));
    }

    private static boolean signsFor(PrivateKey key, X509Certificate leaf) throws Exception {
        String algorithm = key.getAlgorithm().equals("RSA") ? "SHA256withRSA" : "SHA256withECDSA";
        byte[] probe = "probe".getBytes(StandardCharsets.US_ASCII);
        Signature signer = Signature.getInstance(algorithm, Conscrypt.newProvider());
        signer.initSign(key);
        signer.update(probe);
        Signature verifier = Signature.getInstance(algorithm);
        verifier.initVerify(leaf.getPublicKey());
        verifier.update(probe);
        return verifier.verify(signer.sign());
    }
}
