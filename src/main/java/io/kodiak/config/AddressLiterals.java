package io.kodiak.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.regex.Pattern;

/** IP address literals in configuration values: read without any name lookup, a host name is no literal. */
final class AddressLiterals {
    private static final Pattern IPV4 = Pattern.compile("((25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\\.){3}"
            + "(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])");
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*");

    private AddressLiterals() {
    }

    /** An IPv4 literal, or an IPv6 one (no brackets, no scope); null for anything else. */
    static InetAddress parse(String text) {
        if (!IPV4.matcher(text).matches() && !IPV6.matcher(text).matches()) {
            return null;
        }
        try {
            // A literal, as checked above: InetAddress looks nothing up.
            return InetAddress.getByName(text);
        } catch (UnknownHostException e) {
            return null;
        }
    }
}
