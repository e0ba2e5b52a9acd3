package io.kodiak.http;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * A response's trailer fields (RFC 9110 §6.5), as relayed: lower-case names, values as sent. Fields
 * a trailer may not carry are dropped as they are added (§6.5.1: framing, routing, and what decides
 * how the content is read), as are names or values no HTTP/1.1 field line could carry, so the
 * same trailers can be written as a chunked trailer section or an HTTP/2 header block.
 */
public final class Trailers {
    private static final Set<String> NOT_IN_TRAILERS = Set.of("content-length", "transfer-encoding", "host",
            "connection", "keep-alive", "proxy-connection", "te", "trailer", "upgrade", "content-encoding",
            "content-type", "content-range");

    private final List<String> names = new ArrayList<>(4);
    private final List<String> values = new ArrayList<>(4);
    private int size;

    /** Adds a field unless a trailer may not carry it; false when it was dropped. */
    public boolean add(String name, String value) {
        String lower = name.toLowerCase(Locale.ROOT);
        if (lower.isEmpty() || NOT_IN_TRAILERS.contains(lower) || !token(lower) || !fieldValue(value)) {
            return false;
        }
        names.add(lower);
        values.add(value);
        size += lower.length() + value.length() + 32;
        return true;
    }

    public boolean isEmpty() {
        return names.isEmpty();
    }

    /** RFC 9113 §6.5.2's size: each field's name and value plus 32. */
    public int size() {
        return size;
    }

    public void forEach(BiConsumer<String, String> each) {
        for (int i = 0; i < names.size(); i++) {
            each.accept(names.get(i), values.get(i));
        }
    }

    /** The trailer section as HTTP/1.1 field lines, each ending in CRLF (without the final CRLF). */
    public byte[] fieldLines() {
        StringBuilder out = new StringBuilder(size);
        forEach((name, value) -> out.append(name).append(": ").append(value).append("\r\n"));
        return out.toString().getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    private static boolean token(String name) {
        for (int i = 0; i < name.length(); i++) {
            if (name.charAt(i) > 0xff || !ByteClass.isTchar(name.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    /** RFC 9110 §5.5: visible characters, spaces and tabs within; no control byte. */
    private static boolean fieldValue(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c > 0xff || c < 0x20 && c != '\t' || c == 0x7f) {
                return false;
            }
        }
        return true;
    }
}
