package io.kodiak.tls;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class SniKeyManagerTest {
    @TempDir
    Path dir;

    @Test
    void anAliasChosenBeforeAReloadStillGivesItsOwnKeyAndChain() throws Exception {
        TestCertificates certs = new TestCertificates(dir);
        TestCertificates.Issued main = certs.leaf("main", Duration.ofDays(9), "main.test");
        TestCertificates.Issued api = certs.leaf("api", Duration.ofDays(9), "api.test");
        TestCertificates.Issued renewed = certs.leaf("renewed", Duration.ofDays(9), "main.test");
        SniKeyManager keys = new SniKeyManager(List.of(
                new SniKeyManager.Entry(List.of(), PemMaterial.load(main.certificateFile(), main.keyFile())),
                new SniKeyManager.Entry(List.of("api.test"), PemMaterial.load(api.certificateFile(), api.keyFile()))));
        String aliasBefore = "sni-1@0";
        keys.replace(List.of(new SniKeyManager.Entry(List.of(), PemMaterial.load(renewed.certificateFile(), renewed.keyFile()))));
        assertEquals(api.keys().getPrivate(), keys.getPrivateKey(aliasBefore), "the key of the entry chosen, not the new default");
        assertEquals(api.certificate(), keys.getCertificateChain(aliasBefore)[0]);
        assertArrayEquals(new String[] {"default@1"}, keys.getServerAliases("EC", null));
        assertEquals(renewed.certificate(), keys.getCertificateChain("default@1")[0]);
        assertNull(keys.getPrivateKey("sni-5@1"), "no such entry");
        assertNull(keys.getPrivateKey("someone-else"));
        assertEquals(2, SniKeyManager.byName(List.of(
                new SniKeyManager.Entry(List.of(), null), new SniKeyManager.Entry(List.of("a.test"), null),
                new SniKeyManager.Entry(List.of("*.example.org"), null)), "x.example.org"));
    }
}
