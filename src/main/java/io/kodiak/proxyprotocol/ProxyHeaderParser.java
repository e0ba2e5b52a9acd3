package io.kodiak.proxyprotocol;

import io.kodiak.proxyprotocol.ProxyHeaderRefused.Reason;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;

/**
 * Reads the PROXY protocol header (HAProxy's specification, versions 1 and 2) at the start of a
 * connection's bytes: whole, or not yet complete (0), or refused with its reason. Strict, since
 * the header decides the client address everywhere (X-Forwarded-For, the log, limits, hashing):
 * v1 takes exactly one space between fields, decimal ports without leading zeros and addresses
 * as literals of the family it names; v2 takes version 2, the commands LOCAL and PROXY and the
 * defined families. v2's TLVs are skipped.
 */
public final class ProxyHeaderParser {
    /** The v1 line's longest form, CRLF included ("PROXY TCP6 " and two full IPv6 addresses and ports). */
    public static final int MAX_V1 = 107;
    /** The most a v2 header may carry after its 16 fixed bytes: addresses and TLVs (HAProxy sends well under it). */
    public static final int MAX_V2_BODY = 1024;
    /** The longest header accepted, of either version. */
    public static final int MAX_HEADER = 16 + MAX_V2_BODY;

    static final byte[] V1_PREFIX = "PROXY ".getBytes(StandardCharsets.US_ASCII);
    static final byte[] V2_SIGNATURE = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};

    /** A header read whole: what it says and how many bytes it took. */
    public record Parsed(ProxyHeader header, int length) {
    }

    private ProxyHeaderParser() {
    }

    /** The header at the start of {@code bytes[0, length)}: null while more bytes are needed. */
    public static Parsed parse(byte[] bytes, int length) throws ProxyHeaderRefused {
        if (length == 0) {
            return null;
        }
        if (bytes[0] == V2_SIGNATURE[0]) {
            if (!startsWith(bytes, length, V2_SIGNATURE)) {
                throw new ProxyHeaderRefused(Reason.MISSING, "no PROXY protocol header");
            }
            return length < 16 ? null : v2(bytes, length);
        }
        if (!startsWith(bytes, length, V1_PREFIX)) {
            throw new ProxyHeaderRefused(Reason.MISSING, "no PROXY protocol header");
        }
        return v1(bytes, length);
    }

    /** True when {@code bytes} agree with {@code prefix} as far as both go. */
    private static boolean startsWith(byte[] bytes, int length, byte[] prefix) {
        for (int i = 0; i < Math.min(length, prefix.length); i++) {
            if (bytes[i] != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    // ------------------------------------------------------------------ version 1

    private static Parsed v1(byte[] bytes, int length) throws ProxyHeaderRefused {
        int end = -1;
        // The CR at index MAX_V1 - 2 at the latest: the line, CRLF included, is at most MAX_V1 bytes.
        for (int i = V1_PREFIX.length; i < Math.min(length, MAX_V1 - 1); i++) {
            byte b = bytes[i];
            if (b == '\r') {
                if (i + 1 >= length) {
                    return null;
                }
                if (bytes[i + 1] != '\n') {
                    throw malformed("v1 line with a CR not followed by LF");
                }
                end = i;
                break;
            }
            if (b < 0x20 || b > 0x7e) {
                throw malformed("v1 line with a control or non-ASCII byte");
            }
        }
        if (end < 0) {
            if (length >= MAX_V1 - 1) {
                throw new ProxyHeaderRefused(Reason.OVERSIZED, "v1 line longer than " + MAX_V1 + " bytes");
            }
            return null;
        }
        String[] fields = new String(bytes, V1_PREFIX.length, end - V1_PREFIX.length, StandardCharsets.US_ASCII)
                .split(" ", -1);
        int consumed = end + 2;
        switch (fields[0]) {
            case "UNKNOWN":
                // The sender could not tell: whatever follows is ignored (the specification's rule).
                return new Parsed(ProxyHeader.LOCAL, consumed);
            case "TCP4":
            case "TCP6":
                if (fields.length != 5) {
                    throw malformed("v1 " + fields[0] + " line without exactly source, destination and two ports");
                }
                boolean six = fields[0].equals("TCP6");
                InetAddress source = literal(fields[1], six);
                InetAddress destination = literal(fields[2], six);
                return new Parsed(new ProxyHeader(new InetSocketAddress(source, port(fields[3])),
                        new InetSocketAddress(destination, port(fields[4]))), consumed);
            default:
                throw malformed("v1 protocol other than TCP4, TCP6 or UNKNOWN");
        }
    }

    private static int port(String field) throws ProxyHeaderRefused {
        if (field.isEmpty() || field.length() > 5 || (field.length() > 1 && field.charAt(0) == '0')) {
            throw malformed("v1 port that is not a decimal number from 0 to 65535");
        }
        int port = 0;
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c < '0' || c > '9') {
                throw malformed("v1 port that is not a decimal number from 0 to 65535");
            }
            port = port * 10 + (c - '0');
        }
        if (port > 65535) {
            throw malformed("v1 port that is not a decimal number from 0 to 65535");
        }
        return port;
    }

    /**
     * An address literal of the family named, never a name to look up: IPv4 as four decimal
     * octets without leading zeros; IPv6 as hex digits, colons (at least two) and an optional
     * embedded IPv4, which the JDK parses as a literal without asking DNS.
     */
    private static InetAddress literal(String field, boolean six) throws ProxyHeaderRefused {
        if (six) {
            int colons = 0;
            for (int i = 0; i < field.length(); i++) {
                char c = field.charAt(i);
                if (c == ':') {
                    colons++;
                } else if (Character.digit(c, 16) < 0 && c != '.') {
                    throw malformed("v1 TCP6 address that is not an IPv6 literal");
                }
            }
            if (colons < 2 || field.length() > 45) {
                throw malformed("v1 TCP6 address that is not an IPv6 literal");
            }
            try {
                return InetAddress.getByName(field);
            } catch (UnknownHostException e) {
                throw malformed("v1 TCP6 address that is not an IPv6 literal");
            }
        }
        byte[] octets = new byte[4];
        String[] parts = field.split("\\.", -1);
        if (parts.length != 4) {
            throw malformed("v1 TCP4 address that is not an IPv4 literal");
        }
        for (int i = 0; i < 4; i++) {
            String part = parts[i];
            if (part.isEmpty() || part.length() > 3 || (part.length() > 1 && part.charAt(0) == '0')) {
                throw malformed("v1 TCP4 address that is not an IPv4 literal");
            }
            int value = 0;
            for (int k = 0; k < part.length(); k++) {
                char c = part.charAt(k);
                if (c < '0' || c > '9') {
                    throw malformed("v1 TCP4 address that is not an IPv4 literal");
                }
                value = value * 10 + (c - '0');
            }
            if (value > 255) {
                throw malformed("v1 TCP4 address that is not an IPv4 literal");
            }
            octets[i] = (byte) value;
        }
        try {
            return InetAddress.getByAddress(octets);
        } catch (UnknownHostException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    // ------------------------------------------------------------------ version 2

    private static Parsed v2(byte[] bytes, int length) throws ProxyHeaderRefused {
        int versionCommand = bytes[12] & 0xff;
        if (versionCommand >> 4 != 2) {
            throw malformed("v2 header of version " + (versionCommand >> 4));
        }
        int command = versionCommand & 0x0f;
        if (command > 1) {
            throw malformed("v2 command other than LOCAL or PROXY");
        }
        int familyTransport = bytes[13] & 0xff;
        int family = familyTransport >> 4;
        int transport = familyTransport & 0x0f;
        if (family > 3 || transport > 2) {
            throw malformed("v2 address family or transport that is not defined");
        }
        int bodyLength = ((bytes[14] & 0xff) << 8) | (bytes[15] & 0xff);
        if (bodyLength > MAX_V2_BODY) {
            throw new ProxyHeaderRefused(Reason.OVERSIZED, "v2 header of " + bodyLength + " bytes after its first 16, more than " + MAX_V2_BODY);
        }
        if (length < 16 + bodyLength) {
            return null;
        }
        int consumed = 16 + bodyLength;
        // LOCAL: the balancer's own connection; its addresses are ignored, whatever the family says.
        // AF_UNSPEC and AF_UNIX carry no IP address: the socket's own stand.
        if (command == 0 || family == 0 || family == 3) {
            return new Parsed(ProxyHeader.LOCAL, consumed);
        }
        if (transport != 1) {
            throw new ProxyHeaderRefused(Reason.UNSUPPORTED, "v2 header for a transport other than TCP");
        }
        int addressLength = family == 1 ? 4 : 16;
        if (bodyLength < 2 * addressLength + 4) {
            throw malformed("v2 header too short for its addresses");
        }
        byte[] source = new byte[addressLength];
        byte[] destination = new byte[addressLength];
        System.arraycopy(bytes, 16, source, 0, addressLength);
        System.arraycopy(bytes, 16 + addressLength, destination, 0, addressLength);
        int ports = 16 + 2 * addressLength;
        int sourcePort = ((bytes[ports] & 0xff) << 8) | (bytes[ports + 1] & 0xff);
        int destinationPort = ((bytes[ports + 2] & 0xff) << 8) | (bytes[ports + 3] & 0xff);
        try {
            return new Parsed(new ProxyHeader(new InetSocketAddress(InetAddress.getByAddress(source), sourcePort),
                    new InetSocketAddress(InetAddress.getByAddress(destination), destinationPort)), consumed);
        } catch (UnknownHostException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    private static ProxyHeaderRefused malformed(String message) {
        return new ProxyHeaderRefused(Reason.MALFORMED, message);
    }
}
