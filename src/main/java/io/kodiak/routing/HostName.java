package io.kodiak.routing;

import java.nio.charset.StandardCharsets;

/**
 * The host name a request is for, as virtual hosts compare it: the Host value (or an
 * absolute-form target's authority, which stands for it) without its port, without one trailing
 * dot, in lower case (RFC 9110 §4.2.3: the host is case-insensitive). An IPv6 literal keeps its
 * brackets. The bytes were checked against the Host grammar by the parser already.
 */
public final class HostName {
    private HostName() {
    }

    /** The name in {@code array[from, to)}; null when it is empty (no Host at all is null too). */
    public static String of(byte[] array, int from, int to) {
        int end = to;
        if (from < to && array[from] == '[') {
            for (int i = from; i < to; i++) {
                if (array[i] == ']') {
                    end = i + 1;
                    break;
                }
            }
        } else {
            for (int i = from; i < to; i++) {
                if (array[i] == ':') {
                    end = i;
                    break;
                }
            }
            if (end > from && array[end - 1] == '.') {
                end--;
            }
        }
        if (end == from) {
            return null;
        }
        byte[] lower = new byte[end - from];
        for (int i = 0; i < lower.length; i++) {
            byte b = array[from + i];
            lower[i] = b >= 'A' && b <= 'Z' ? (byte) (b | 0x20) : b;
        }
        return new String(lower, StandardCharsets.ISO_8859_1);
    }

    /**
     * {@code host} when it is a plain name (letters, digits, '-', '.', '_') or a bracketed IPv6
     * literal, else "" : the Host grammar also admits sub-delimiters (",", ";", "=" ...) and
     * percent-escapes, which a header rule's value such as "for=${client_addr};host=${host}" must
     * not carry into a field another parser splits on them.
     */
    public static String plain(String host) {
        if (host == null) {
            return null;
        }
        if (host.startsWith("[")) {
            return host.chars().allMatch(c -> c == '[' || c == ']' || c == ':' || c == '.' || Character.digit(c, 16) >= 0 && c < 0x80)
                    ? host : "";
        }
        for (int i = 0; i < host.length(); i++) {
            char c = host.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_')) {
                return "";
            }
        }
        return host;
    }

    /** The same rules for a name given as text (a configured host, a TLS server name). */
    public static String of(String host) {
        byte[] bytes = host.getBytes(StandardCharsets.ISO_8859_1);
        return of(bytes, 0, bytes.length);
    }
}
