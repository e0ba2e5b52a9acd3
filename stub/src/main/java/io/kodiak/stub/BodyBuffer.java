package io.kodiak.stub;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/** A growable byte array that reads straight into itself, so a body is copied once on its way in. */
final class BodyBuffer {
    private static final int DEFAULT_CAPACITY = 256;
    // Content-Length is only a hint: a client may lie, so never trust it for more than this up front.
    private static final int MAX_PRESIZE = 1 << 20;

    private byte[] bytes;
    private int size;

    BodyBuffer(long declaredLength) {
        int capacity = declaredLength > 0 ? (int) Math.min(declaredLength, MAX_PRESIZE) : DEFAULT_CAPACITY;
        this.bytes = new byte[capacity];
    }

    /** One read from {@code in}; returns what {@link InputStream#read(byte[], int, int)} returned. */
    int readFrom(InputStream in) throws IOException {
        if (size == bytes.length) {
            bytes = Arrays.copyOf(bytes, bytes.length * 2);
        }
        int n = in.read(bytes, size, bytes.length - size);
        if (n > 0) {
            size += n;
        }
        return n;
    }

    void readAll(InputStream in) throws IOException {
        while (readFrom(in) >= 0) {
            // keep reading to the end of the body
        }
    }

    String decode(String declaredCharset) {
        return RequestText.decode(bytes, size, declaredCharset);
    }
}
