package io.kodiak.http;

/**
 * Host = uri-host [ ":" port ] (RFC 9110 §7.2, RFC 3986 §3.2.2): a reg-name (unreserved,
 * pct-encoded and sub-delims characters; an IPv4 address is one too) or an IPv6 literal in
 * brackets, then optionally a colon and a decimal port up to 65535. The host part may not be empty: an
 * "http" URI has a host (RFC 9110 §4.2.1, "a recipient ... MUST reject it as invalid"), and
 * nginx refuses an empty Host too. Whitespace around the value was trimmed by the field parser.
 */
final class HostSyntax {
    private static final boolean[] REG_NAME = new boolean[128];

    static {
        for (char c = 'a'; c <= 'z'; c++) {
            REG_NAME[c] = true;
            REG_NAME[Character.toUpperCase(c)] = true;
        }
        for (char c = '0'; c <= '9'; c++) {
            REG_NAME[c] = true;
        }
        for (char c : "-._~!$&'()*+,;=".toCharArray()) {
            REG_NAME[c] = true;
        }
    }

    private HostSyntax() {
    }

    /** Whether {@code host[from, length)} is a valid Host value. */
    static boolean isValid(byte[] host, int from, int length) {
        int i = from;
        if (length > from && (host[from] & 0xff) == '[') {
            i = from + 1;
            while (i < length && isIpv6Char((host[i] & 0xff))) {
                i++;
            }
            if (i == from + 1 || i >= length || (host[i] & 0xff) != ']') {
                return false;
            }
            i++;
        } else {
            while (i < length) {
                int b = (host[i] & 0xff);
                if (b == '%') {
                    if (i + 2 >= length || ByteClass.hexValue((host[i + 1] & 0xff)) < 0
                            || ByteClass.hexValue((host[i + 2] & 0xff)) < 0) {
                        return false;
                    }
                    i += 3;
                } else if (b < REG_NAME.length && REG_NAME[b]) {
                    i++;
                } else {
                    break;
                }
            }
        }
        if (i == from) {
            return false;
        }
        if (i == length) {
            return true;
        }
        if ((host[i] & 0xff) != ':') {
            return false;
        }
        // port = *DIGIT (RFC 3986 sets no range; nothing above 65535 names a TCP port, and Jetty refuses it too)
        int port = 0;
        for (i++; i < length; i++) {
            int b = (host[i] & 0xff);
            if (!ByteClass.isDigit(b)) {
                return false;
            }
            port = port * 10 + b - '0';
            if (port > 65535) {
                return false;
            }
        }
        return true;
    }

    /** Hex digits, colons and dots: an IPv6 address, possibly ending in IPv4 form. */
    private static boolean isIpv6Char(int b) {
        return b == ':' || b == '.' || ByteClass.hexValue(b) >= 0;
    }
}
