package io.kodiak.proxyprotocol;

import io.kodiak.config.ProxyProtocolVersion;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * The header a new upstream connection opens with, naming the client connection it was opened
 * for: v1's text line or v2's binary form. Without an IP address pair of one family (a health
 * check's connection, opened for nobody), v1 says UNKNOWN and v2 LOCAL, as HAProxy's checks do.
 */
public final class ProxyHeaderWriter {
    private ProxyHeaderWriter() {
    }

    public static byte[] write(ProxyProtocolVersion version, ProxyHeader origin) {
        return switch (version) {
            case V1 -> v1(origin);
            case V2 -> v2(origin);
            case OFF -> throw new IllegalArgumentException("no header is sent with proxy-protocol off");
        };
    }

    private static boolean sameFamily(ProxyHeader origin) {
        return origin != null && origin.source() != null && origin.destination() != null
                && origin.source().getAddress() != null && origin.destination().getAddress() != null
                && (origin.source().getAddress() instanceof Inet4Address) == (origin.destination().getAddress() instanceof Inet4Address);
    }

    private static byte[] v1(ProxyHeader origin) {
        if (!sameFamily(origin)) {
            return "PROXY UNKNOWN\r\n".getBytes(StandardCharsets.US_ASCII);
        }
        InetSocketAddress source = origin.source();
        InetSocketAddress destination = origin.destination();
        String family = source.getAddress() instanceof Inet4Address ? "TCP4" : "TCP6";
        return ("PROXY " + family + ' ' + literal(source.getAddress()) + ' ' + literal(destination.getAddress())
                + ' ' + source.getPort() + ' ' + destination.getPort() + "\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    /** The address as v1 writes it: a link-local IPv6 address without its scope ("%eth0" is no part of the format). */
    private static String literal(InetAddress address) {
        try {
            return InetAddress.getByAddress(address.getAddress()).getHostAddress();
        } catch (UnknownHostException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    private static byte[] v2(ProxyHeader origin) {
        byte[] signature = ProxyHeaderParser.V2_SIGNATURE;
        if (!sameFamily(origin)) {
            byte[] local = new byte[16];
            System.arraycopy(signature, 0, local, 0, signature.length);
            local[12] = 0x20;  // version 2, LOCAL
            local[13] = 0x00;  // AF_UNSPEC, no addresses
            return local;
        }
        byte[] source = origin.source().getAddress().getAddress();
        byte[] destination = origin.destination().getAddress().getAddress();
        int addresses = 2 * source.length + 4;
        byte[] header = new byte[16 + addresses];
        System.arraycopy(signature, 0, header, 0, signature.length);
        header[12] = 0x21;  // version 2, PROXY
        header[13] = (byte) (source.length == 4 ? 0x11 : 0x21);  // AF_INET or AF_INET6, over TCP
        header[14] = (byte) (addresses >> 8);
        header[15] = (byte) addresses;
        System.arraycopy(source, 0, header, 16, source.length);
        System.arraycopy(destination, 0, header, 16 + source.length, destination.length);
        int ports = 16 + 2 * source.length;
        header[ports] = (byte) (origin.source().getPort() >> 8);
        header[ports + 1] = (byte) origin.source().getPort();
        header[ports + 2] = (byte) (origin.destination().getPort() >> 8);
        header[ports + 3] = (byte) origin.destination().getPort();
        return header;
    }
}
