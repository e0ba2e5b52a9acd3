package io.kodiak.support;

import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** Deterministic bodies of any size, generated on the fly so 100 MiB tests hold no 100 MiB array. */
public final class Patterns {
    private Patterns() {
    }

    public static InputStream stream(long length) {
        return new InputStream() {
            private long position;

            @Override
            public int read() {
                return position < length ? byteAt(position++) : -1;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (position >= length) {
                    return -1;
                }
                int n = (int) Math.min(len, length - position);
                for (int i = 0; i < n; i++) {
                    b[off + i] = (byte) byteAt(position++);
                }
                return n;
            }
        };
    }

    static int byteAt(long i) {
        return (int) ((i * 31 + (i >>> 9)) & 0xff);
    }

    public static String sha256(InputStream in) throws IOException {
        MessageDigest sha = sha();
        byte[] buffer = new byte[64 * 1024];
        for (int n; (n = in.read(buffer)) != -1; ) {
            sha.update(buffer, 0, n);
        }
        return hex(sha.digest());
    }

    public static String sha256Of(long length) throws IOException {
        return sha256(stream(length));
    }

    /** The first {@code length} bytes of the pattern, in an array. */
    public static byte[] bytes(int length) {
        try {
            return stream(length).readAllBytes();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    public static String hex(byte[] bytes) {
        StringBuilder s = new StringBuilder(bytes.length * 2);
        for (byte b : bytes) {
            s.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
        }
        return s.toString();
    }

    private static MessageDigest sha() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
