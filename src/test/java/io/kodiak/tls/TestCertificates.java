package io.kodiak.tls;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import java.io.IOException;
import java.io.Writer;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** Certificates made in the test: a self-signed CA and leaves it signs, written as PEM files. */
public final class TestCertificates {
    private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

    /** A certificate, its key pair, and where their PEM files were written. */
    public record Issued(X509Certificate certificate, KeyPair keys, Path certificateFile, Path keyFile) {
    }

    private final Path dir;
    private final Issued ca;

    public TestCertificates(Path dir) throws Exception {
        this.dir = dir;
        KeyPair keys = ecKeys();
        X509Certificate cert = sign(new X500Name("CN=Kodiak test CA"), keys, new X500Name("CN=Kodiak test CA"), keys,
                Instant.now().minus(Duration.ofDays(1)), Instant.now().plus(Duration.ofDays(365)), true);
        this.ca = write("ca", cert, keys);
    }

    public Issued ca() {
        return ca;
    }

    /** A leaf for {@code names} (SAN DNS entries) with an EC key written as PKCS#8, valid for {@code validFor}. */
    public Issued leaf(String file, Duration validFor, String... names) throws Exception {
        return leaf(file, ecKeys(), validFor, names);
    }

    /** The same with an RSA key, written as PKCS#1 ("RSA PRIVATE KEY"). */
    public Issued rsaLeaf(String file, Duration validFor, String... names) throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        return leaf(file, generator.generateKeyPair(), validFor, names);
    }

    private Issued leaf(String file, KeyPair keys, Duration validFor, String... names) throws Exception {
        X509Certificate cert = sign(new X500Name("CN=" + names[0]), keys, new X500Name("CN=Kodiak test CA"), ca.keys(),
                Instant.now().minus(Duration.ofDays(2)), Instant.now().plus(validFor), false, names);
        return write(file, cert, keys);
    }

    /** A leaf that expired yesterday. */
    public Issued expired(String file, String name) throws Exception {
        KeyPair keys = ecKeys();
        X509Certificate cert = sign(new X500Name("CN=" + name), keys, new X500Name("CN=Kodiak test CA"), ca.keys(),
                Instant.now().minus(Duration.ofDays(30)), Instant.now().minus(Duration.ofDays(1)), false, name);
        return write(file, cert, keys);
    }

    /** A client-side context that trusts the test CA, optionally presenting {@code identity}. */
    public SSLContext clientContext(Issued identity) throws Exception {
        return clientContext(identity, this);
    }

    /** A client-side context that trusts this test CA, presenting {@code identity}, issued by {@code issuer}'s CA. */
    public SSLContext clientContext(Issued identity, TestCertificates issuer) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", ca.certificate());
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        KeyManagerFactory kmf = null;
        if (identity != null) {
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            keys.setKeyEntry("me", identity.keys().getPrivate(), new char[0],
                    new X509Certificate[] {identity.certificate(), issuer.ca.certificate()});
            kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, new char[0]);
        }
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return context;
    }

    /** A server-side context presenting {@code identity}, trusting the test CA for client certificates. */
    public SSLContext serverContext(Issued identity) throws Exception {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        keys.setKeyEntry("me", identity.keys().getPrivate(), new char[0],
                new X509Certificate[] {identity.certificate(), ca.certificate()});
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, new char[0]);
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", ca.certificate());
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return context;
    }

    private static KeyPair ecKeys() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        return generator.generateKeyPair();
    }

    private static X509Certificate sign(X500Name subject, KeyPair subjectKeys, X500Name issuer, KeyPair issuerKeys,
                                        Instant from, Instant to, boolean isCa, String... names) throws Exception {
        X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(issuer, BigInteger.valueOf(SERIAL.incrementAndGet()),
                Date.from(from), Date.from(to), subject, subjectKeys.getPublic());
        builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(isCa));
        if (names.length > 0) {
            GeneralName[] san = new GeneralName[names.length];
            for (int i = 0; i < names.length; i++) {
                // An address (127.0.0.1) is an IP SAN: hostname verification matches IPs only against those.
                san[i] = new GeneralName(names[i].matches("[0-9.]+") ? GeneralName.iPAddress : GeneralName.dNSName, names[i]);
            }
            builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(san));
        }
        return new JcaX509CertificateConverter().getCertificate(
                builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKeys.getPrivate())));
    }

    private Issued write(String name, X509Certificate cert, KeyPair keys) throws IOException {
        Path certFile = dir.resolve(name + ".pem");
        Path keyFile = dir.resolve(name + ".key");
        try (Writer w = Files.newBufferedWriter(certFile); JcaPEMWriter pem = new JcaPEMWriter(w)) {
            pem.writeObject(cert);
        }
        try (Writer w = Files.newBufferedWriter(keyFile); JcaPEMWriter pem = new JcaPEMWriter(w)) {
            // RSA as PKCS#1, EC as PKCS#8: two of the three forms Kodiak reads (BouncyCastle's own
            // SEC1 output leaves out the curve, which openssl's keeps).
            if (keys.getPrivate().getAlgorithm().equals("RSA")) {
                pem.writeObject(keys.getPrivate());
            } else {
                pem.writeObject(new org.bouncycastle.openssl.jcajce.JcaPKCS8Generator(keys.getPrivate(), null));
            }
        }
        return new Issued(cert, keys, certFile, keyFile);
    }
}
