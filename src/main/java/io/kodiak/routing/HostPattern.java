package io.kodiak.routing;

import java.util.Locale;

/**
 * A route's {@code host}: an exact name ({@code api.example.com}, an IPv4 address or a bracketed
 * IPv6 literal) or a leading wildcard ({@code *.example.org}, which matches any name ending in
 * {@code .example.org}, however many labels precede it, but not {@code example.org} itself, as
 * nginx's server_name does). Kept in the form requests are compared in: lower case, no trailing dot.
 */
public record HostPattern(String name) {

    /** Raised for a value that is no host pattern; the message says what was expected. */
    public static final class Invalid extends Exception {
        public Invalid(String expected) {
            super(expected, null, false, false);
        }
    }

    public static HostPattern parse(String text) throws Invalid {
        String name = text.trim().toLowerCase(Locale.ROOT);
        if (name.endsWith(".") && !name.endsWith("..")) {
            name = name.substring(0, name.length() - 1);
        }
        String expected = "a host name (api.example.com), a leading wildcard (*.example.org) or an address, without a port";
        if (name.isEmpty() || name.equals("*")) {
            throw new Invalid(expected + " (leave host out to serve every name)");
        }
        if (name.startsWith("[")) {
            if (!name.endsWith("]") || name.length() < 4 || !name.substring(1, name.length() - 1).matches("[0-9a-f:.]+")) {
                throw new Invalid(expected);
            }
            return new HostPattern(name);
        }
        String labels = name.startsWith("*.") ? name.substring(2) : name;
        for (String label : labels.split("\\.", -1)) {
            if (label.isEmpty() || label.length() > 63 || !label.matches("[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?")) {
                throw new Invalid(expected);
            }
        }
        return new HostPattern(name);
    }

    public boolean isWildcard() {
        return name.startsWith("*.");
    }

    /** For a wildcard, the suffix a matching name ends with (".example.org"). */
    String suffix() {
        return name.substring(1);
    }

    @Override
    public String toString() {
        return name;
    }
}
