package io.kodiak.exchange;

import io.kodiak.http.RequestHead;
import io.kodiak.limits.LimitKey;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The key a request is limited by. Header values and addresses are kept apart ("h:" and "a:"), or
 * a client could send another client's address as its API key and drain that client's bucket; a
 * long header value is kept as its SHA-256, so a bucket costs about the same whatever a client
 * sends (max-keys bounds the count, this the size).
 */
final class LimitKeys {
    /** Values up to this many characters are kept as they are. */
    private static final int KEPT_AS_IS = 64;

    private LimitKeys() {
    }

    static String of(LimitKey key, RequestHead head, ClientStream client) {
        if (key.byHeader()) {
            String value = head.firstValue(key.headerName());
            if (value != null && !value.isEmpty()) {
                return value.length() <= KEPT_AS_IS ? "h:" + value : "h#" + sha256(value);
            }
        }
        return "a:" + client.address();
    }

    private static String sha256(String value) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.ISO_8859_1));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
