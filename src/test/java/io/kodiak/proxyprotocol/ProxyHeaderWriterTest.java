package io.kodiak.proxyprotocol;

import io.kodiak.config.ProxyProtocolVersion;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** What Kodiak sends upstream reads back as what it meant, in both versions. */
class ProxyHeaderWriterTest {
    private static final ProxyHeader FOUR = new ProxyHeader(new InetSocketAddress("203.0.113.7", 51234),
            new InetSocketAddress("192.0.2.1", 443));
    private static final ProxyHeader SIX = new ProxyHeader(new InetSocketAddress("2001:db8::7", 40000),
            new InetSocketAddress("2001:db8::1", 8443));

    @Test
    void bothVersionsReadBackAsTheAddressesWritten() throws Exception {
        for (ProxyProtocolVersion version : new ProxyProtocolVersion[]{ProxyProtocolVersion.V1, ProxyProtocolVersion.V2}) {
            for (ProxyHeader origin : new ProxyHeader[]{FOUR, SIX}) {
                byte[] bytes = ProxyHeaderWriter.write(version, origin);
                ProxyHeaderParser.Parsed parsed = ProxyHeaderParser.parse(bytes, bytes.length);
                assertEquals(origin, parsed.header(), version + " " + origin);
                assertEquals(bytes.length, parsed.length());
            }
        }
        assertEquals("PROXY TCP4 203.0.113.7 192.0.2.1 51234 443\r\n",
                new String(ProxyHeaderWriter.write(ProxyProtocolVersion.V1, FOUR), StandardCharsets.US_ASCII));
    }

    @Test
    void aLinkLocalClientsScopeIsLeftOutOfV1() throws Exception {
        java.net.Inet6Address scoped = java.net.Inet6Address.getByAddress(null,
                java.net.InetAddress.getByName("fe80::1").getAddress(), 1);
        ProxyHeader origin = new ProxyHeader(new InetSocketAddress(scoped, 40000), new InetSocketAddress("fe80::2", 443));
        byte[] bytes = ProxyHeaderWriter.write(ProxyProtocolVersion.V1, origin);
        assertFalse(new String(bytes, StandardCharsets.US_ASCII).contains("%"));
        assertEquals(40000, ProxyHeaderParser.parse(bytes, bytes.length).header().source().getPort());
    }

    @Test
    void aConnectionForNoClientSaysSo() throws Exception {
        assertEquals("PROXY UNKNOWN\r\n",
                new String(ProxyHeaderWriter.write(ProxyProtocolVersion.V1, ProxyHeader.LOCAL), StandardCharsets.US_ASCII));
        byte[] local = ProxyHeaderWriter.write(ProxyProtocolVersion.V2, ProxyHeader.LOCAL);
        assertEquals(16, local.length);
        assertFalse(ProxyHeaderParser.parse(local, local.length).header().carriesAddress());
        // Mixed families cannot be one header's pair.
        ProxyHeader mixed = new ProxyHeader(FOUR.source(), SIX.destination());
        assertEquals("PROXY UNKNOWN\r\n",
                new String(ProxyHeaderWriter.write(ProxyProtocolVersion.V1, mixed), StandardCharsets.US_ASCII));
    }
}
