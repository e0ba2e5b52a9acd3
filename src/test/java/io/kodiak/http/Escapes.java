package io.kodiak.http;

/** Test data written with visible escapes (CSV sources cannot hold raw CR and LF): backslash r, n, t, and backslash u with four hex digits. */
final class Escapes {
    private Escapes() {
    }

    static String unescape(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c != '\\' || i + 1 == text.length()) {
                out.append(c);
                continue;
            }
            char next = text.charAt(++i);
            switch (next) {
                case 'r' -> out.append('\r');
                case 'n' -> out.append('\n');
                case 't' -> out.append('\t');
                case 'u' -> {
                    out.append((char) Integer.parseInt(text.substring(i + 1, i + 5), 16));
                    i += 4;
                }
                default -> out.append('\\').append(next);
            }
        }
        return out.toString();
    }
}
