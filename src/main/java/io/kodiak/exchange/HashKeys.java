package io.kodiak.exchange;

import io.kodiak.config.UpstreamGroupConfig;
import io.kodiak.http.RequestHead;

/** The key a hash-balanced group hashes for a request: a header's value, a cookie's, or the client's address. */
final class HashKeys {
    private HashKeys() {
    }

    /** Null when the group does not hash or the request lacks the header or cookie (it then goes round-robin). */
    static String of(UpstreamGroupConfig.HashKey key, RequestHead head, String clientAddress) {
        if (key == null) {
            return null;
        }
        return switch (key.kind()) {
            case CLIENT_ADDRESS -> clientAddress;
            case HEADER -> head.firstValue(key.name());
            case COOKIE -> cookie(head.firstValue("cookie"), key.name());
        };
    }

    /** RFC 6265 §4.2.1: cookie-pairs separated by "; ". */
    static String cookie(String header, String name) {
        if (header == null) {
            return null;
        }
        int at = 0;
        while (at < header.length()) {
            int end = header.indexOf(';', at);
            if (end < 0) {
                end = header.length();
            }
            int eq = header.indexOf('=', at);
            if (eq > 0 && eq < end && header.substring(at, eq).trim().equals(name)) {
                return header.substring(eq + 1, end).trim();
            }
            at = end + 1;
        }
        return null;
    }
}
