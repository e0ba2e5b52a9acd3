package io.kodiak.proxyprotocol;

import io.kodiak.proxyprotocol.ProxyHeaderRefused.Reason;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The PROXY protocol header as HAProxy's specification writes it, and what is refused. */
class ProxyHeaderParserTest {

    private static ProxyHeaderParser.Parsed parse(byte[] bytes) throws ProxyHeaderRefused {
        return ProxyHeaderParser.parse(bytes, bytes.length);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void v1Tcp4GivesBothAddressesAndTheLengthTaken() throws Exception {
        byte[] bytes = ascii("PROXY TCP4 203.0.113.7 192.0.2.1 51234 443\r\nGET / HTTP/1.1\r\n");
        ProxyHeaderParser.Parsed parsed = parse(bytes);
        assertEquals(new InetSocketAddress("203.0.113.7", 51234), parsed.header().source());
        assertEquals(new InetSocketAddress("192.0.2.1", 443), parsed.header().destination());
        assertEquals("PROXY TCP4 203.0.113.7 192.0.2.1 51234 443\r\n".length(), parsed.length());
    }

    @Test
    void v1Tcp6AndUnknown() throws Exception {
        ProxyHeaderParser.Parsed six = parse(ascii("PROXY TCP6 2001:db8::7 2001:db8::1 65535 0\r\n"));
        assertEquals(new InetSocketAddress("2001:db8::7", 65535), six.header().source());
        assertFalse(parse(ascii("PROXY UNKNOWN\r\n")).header().carriesAddress());
        assertFalse(parse(ascii("PROXY UNKNOWN ffff:f...f:ffff ffff:f...f:ffff 65535 65535\r\n")).header().carriesAddress());
    }

    @Test
    void everyPrefixOfAHeaderAsksForMore() throws Exception {
        byte[][] headers = {ascii("PROXY TCP4 203.0.113.7 192.0.2.1 51234 443\r\n"), v2(0x21, 0x11, ipv4Body(), new byte[0])};
        for (byte[] header : headers) {
            for (int n = 0; n < header.length; n++) {
                assertNull(ProxyHeaderParser.parse(header, n), "a prefix of " + n + " bytes");
            }
            assertEquals(header.length, ProxyHeaderParser.parse(header, header.length).length());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "PROXY TCP4 203.0.113.7 192.0.2.1 51234 443\n",          // LF alone
            "PROXY TCP4 203.0.113.7 192.0.2.1 51234 443 \r\n",       // a trailing space: an empty sixth field
            "PROXY TCP4  203.0.113.7 192.0.2.1 51234 443\r\n",       // two spaces
            "PROXY TCP4 203.0.113.07 192.0.2.1 51234 443\r\n",       // a leading zero
            "PROXY TCP4 203.0.113.256 192.0.2.1 51234 443\r\n",      // an octet past 255
            "PROXY TCP4 localhost 192.0.2.1 51234 443\r\n",          // a name, never looked up
            "PROXY TCP4 2001:db8::7 192.0.2.1 51234 443\r\n",        // IPv6 under TCP4
            "PROXY TCP6 203.0.113.7 2001:db8::1 51234 443\r\n",      // IPv4 under TCP6
            "PROXY TCP6 2001:db8::7%eth0 2001:db8::1 51234 443\r\n", // a zone
            "PROXY TCP4 203.0.113.7 192.0.2.1 65536 443\r\n",        // a port past 65535
            "PROXY TCP4 203.0.113.7 192.0.2.1 051234 443\r\n",       // a port with a leading zero
            "PROXY TCP4 203.0.113.7 192.0.2.1 +5123 443\r\n",        // a sign
            "PROXY UDP4 203.0.113.7 192.0.2.1 51234 443\r\n",        // not TCP
            "PROXY TCP4 203.0.113.7 192.0.2.1 51234\r\n",            // a field short
            "PROXY \r\n",
            "PROXY TCP4 203.0.113.7\t192.0.2.1 51234 443\r\n",       // a control byte
    })
    void malformedV1LinesAreRefused(String line) {
        ProxyHeaderRefused refused = assertThrows(ProxyHeaderRefused.class, () -> parse(ascii(line)), line);
        assertEquals(Reason.MALFORMED, refused.reason(), line);
    }

    @Test
    void aConnectionThatDoesNotOpenWithAHeaderIsRefusedAtItsFirstByteThatDiffers() {
        assertEquals(Reason.MISSING, assertThrows(ProxyHeaderRefused.class, () -> parse(ascii("GET / HTTP/1.1\r\n"))).reason());
        assertEquals(Reason.MISSING, assertThrows(ProxyHeaderRefused.class, () -> parse(ascii("PROXX"))).reason());
        // A TLS ClientHello, straight to a port behind the balancer.
        assertEquals(Reason.MISSING, assertThrows(ProxyHeaderRefused.class, () -> parse(new byte[]{0x16, 0x03, 0x01})).reason());
        assertEquals(Reason.MISSING, assertThrows(ProxyHeaderRefused.class,
                () -> parse(new byte[]{0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0B})).reason());
    }

    @Test
    void aV1LineLongerThanTheSpecificationsLongestIsRefusedWithoutWaitingForItsEnd() {
        byte[] bytes = ascii("PROXY UNKNOWN " + "x".repeat(200));
        assertEquals(Reason.OVERSIZED, assertThrows(ProxyHeaderRefused.class, () -> parse(bytes)).reason());
    }

    @Test
    void aV1LineOfExactlyTheLongestLengthIsTakenAndOneByteMoreIsNot() throws Exception {
        String longest = "PROXY UNKNOWN " + "x".repeat(ProxyHeaderParser.MAX_V1 - 16) + "\r\n";
        assertEquals(ProxyHeaderParser.MAX_V1, longest.length());
        assertEquals(ProxyHeaderParser.MAX_V1, parse(ascii(longest)).length());
        String over = "PROXY UNKNOWN " + "x".repeat(ProxyHeaderParser.MAX_V1 - 15) + "\r\n";
        assertEquals(Reason.OVERSIZED, assertThrows(ProxyHeaderRefused.class, () -> parse(ascii(over))).reason());
    }

    @Test
    void v2ProxyOverIpv4AndIpv6WithTlvsSkipped() throws Exception {
        byte[] tlv = {0x04, 0x00, 0x03, 'a', 'b', 'c'};  // PP2_TYPE_NOOP
        byte[] four = v2(0x21, 0x11, ipv4Body(), tlv);
        ProxyHeaderParser.Parsed parsed = parse(concat(four, ascii("GET /")));
        assertEquals(new InetSocketAddress("203.0.113.7", 51234), parsed.header().source());
        assertEquals(new InetSocketAddress("192.0.2.1", 443), parsed.header().destination());
        assertEquals(four.length, parsed.length());

        byte[] body = new byte[36];
        body[0] = 0x20;
        body[1] = 0x01;
        body[2] = 0x0d;
        body[3] = (byte) 0xb8;
        body[15] = 7;
        body[16] = 0x20;
        body[17] = 0x01;
        body[31] = 1;
        body[32] = (byte) 0xff;
        body[33] = (byte) 0xff;
        body[35] = 80;
        ProxyHeaderParser.Parsed six = parse(v2(0x21, 0x21, body, new byte[0]));
        assertEquals(new InetSocketAddress("2001:db8::7", 65535), six.header().source());
        assertEquals(new InetSocketAddress("2001::1", 80), six.header().destination());
    }

    @Test
    void v2LocalUnspecifiedAndUnixKeepTheSocketsAddress() throws Exception {
        assertFalse(parse(v2(0x20, 0x11, ipv4Body(), new byte[0])).header().carriesAddress(), "LOCAL");
        assertFalse(parse(v2(0x21, 0x00, new byte[0], new byte[0])).header().carriesAddress(), "AF_UNSPEC");
        assertFalse(parse(v2(0x21, 0x31, new byte[216], new byte[0])).header().carriesAddress(), "AF_UNIX");
    }

    @Test
    void v2BreachesAreRefusedByReason() {
        assertEquals(Reason.MALFORMED, refusal(v2(0x11, 0x11, ipv4Body(), new byte[0])), "version 1 in a v2 header");
        assertEquals(Reason.MALFORMED, refusal(v2(0x22, 0x11, ipv4Body(), new byte[0])), "command 2");
        assertEquals(Reason.MALFORMED, refusal(v2(0x21, 0x41, ipv4Body(), new byte[0])), "family 4");
        assertEquals(Reason.MALFORMED, refusal(v2(0x21, 0x13, ipv4Body(), new byte[0])), "transport 3");
        assertEquals(Reason.MALFORMED, refusal(v2(0x21, 0x11, new byte[8], new byte[0])), "addresses cut short");
        assertEquals(Reason.UNSUPPORTED, refusal(v2(0x21, 0x12, ipv4Body(), new byte[0])), "UDP");
        byte[] huge = v2(0x21, 0x11, ipv4Body(), new byte[0]);
        huge[14] = 0x10;  // 4096 bytes announced
        assertEquals(Reason.OVERSIZED, refusal(java.util.Arrays.copyOf(huge, 16)), "refused from the fixed part alone");
    }

    private static Reason refusal(byte[] bytes) {
        return assertThrows(ProxyHeaderRefused.class, () -> parse(bytes)).reason();
    }

    /** 203.0.113.7:51234 to 192.0.2.1:443. */
    static byte[] ipv4Body() {
        return new byte[]{(byte) 203, 0, 113, 7, (byte) 192, 0, 2, 1, (byte) 0xc8, 0x22, 0x01, (byte) 0xbb};
    }

    static byte[] v2(int versionCommand, int familyTransport, byte[] addresses, byte[] tlvs) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(ProxyHeaderParser.V2_SIGNATURE);
        out.write(versionCommand);
        out.write(familyTransport);
        int length = addresses.length + tlvs.length;
        out.write(length >> 8);
        out.write(length & 0xff);
        out.writeBytes(addresses);
        out.writeBytes(tlvs);
        return out.toByteArray();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] all = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
