package io.kodiak.http;

import io.kodiak.transport.OneWrite;
import io.kodiak.transport.PooledBuffers;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.MemoryManager;

import java.util.Arrays;

/**
 * Builds the head a message leaves with, from byte ranges of the head it arrived with and a few
 * lines of the proxy's own, in an array each thread reuses; {@link #toBuffer} copies the head out
 * into a buffer of the transport's memory manager (pooled where it counts slices).
 */
public final class HeadWriter {
    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] COLON_SP = {':', ' '};
    /** One per thread: a head is built and copied out before the next one starts. */
    private static final ThreadLocal<HeadWriter> PER_THREAD = ThreadLocal.withInitial(() -> new HeadWriter(1024));
    private byte[] bytes;
    private int length;

    /** {@code expected}: the size the head will most likely have (it grows past it if needed). */
    public HeadWriter(int expected) {
        bytes = new byte[expected];
    }

    /** The calling thread's writer, empty, with room for {@code expected} bytes. */
    public static HeadWriter start(int expected) {
        HeadWriter writer = PER_THREAD.get();
        writer.length = 0;
        writer.ensure(expected);
        return writer;
    }

    /** What was written so far, as text (one char per byte). */
    public String text() {
        return new String(bytes, 0, length, java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    public HeadWriter bytes(byte[] source, int from, int to) {
        int n = to - from;
        ensure(n);
        System.arraycopy(source, from, bytes, length, n);
        length += n;
        return this;
    }

    public HeadWriter bytes(byte[] source) {
        return bytes(source, 0, source.length);
    }

    /** US-ASCII text (a path, a query, an address): one byte per char, as parsed from bytes. */
    public HeadWriter ascii(String text) {
        int n = text.length();
        ensure(n);
        for (int i = 0; i < n; i++) {
            bytes[length++] = (byte) text.charAt(i);
        }
        return this;
    }

    /**
     * A non-negative number (a status, a Content-Length) written digit by digit: every response
     * head has one or two, and Long.toString allocated a string and its bytes for each.
     */
    public HeadWriter decimal(long value) {
        if (value < 0) {
            throw new IllegalArgumentException("a status or length is never negative: " + value);
        }
        int digits = 1;
        for (long rest = value / 10; rest > 0; rest /= 10) {
            digits++;
        }
        ensure(digits);
        long rest = value;
        for (int i = length + digits - 1; i >= length; i--) {
            bytes[i] = (byte) ('0' + rest % 10);
            rest /= 10;
        }
        length += digits;
        return this;
    }

    /** A field line's start: the name and ": ". */
    public HeadWriter name(byte[] name) {
        return bytes(name).bytes(COLON_SP);
    }

    /** The field line {@code field} of {@code head}, as it arrived but ended with CRLF. */
    public HeadWriter fieldLine(MessageHead head, int field) {
        HeadLayout layout = head.layout();
        return bytes(head.array(), layout.nameStart(field), layout.valueEnd(field)).crlf();
    }

    public HeadWriter crlf() {
        return bytes(CRLF);
    }

    /**
     * The head as a buffer of its own: from {@code memory}'s pools where they count slices (let
     * go of once written), else an array of its exact size.
     */
    public Buffer toBuffer(MemoryManager memory) {
        if (PooledBuffers.countsSlices(memory)) {
            Buffer out = memory.allocate(length);
            out.put(bytes, 0, length);
            out.flip();
            out.allowBufferDispose(true);
            return out;
        }
        return Buffers.wrap(memory, Arrays.copyOf(bytes, length));
    }

    /**
     * The head and {@code rest} (null: none) in one write: in one pooled buffer when both are
     * small, so the head never needs a buffer of its own only to be copied again; {@code rest} is
     * let go of once copied. Otherwise the head's buffer and {@code rest} in {@link OneWrite}'s way.
     */
    public Buffer toBuffer(MemoryManager memory, Buffer rest) {
        if (rest == null) {
            return toBuffer(memory);
        }
        int more = rest.remaining();
        if (length + more > OneWrite.COPY_LIMIT || !PooledBuffers.countsSlices(memory)) {
            return OneWrite.of(memory, toBuffer(memory), rest);
        }
        Buffer out = memory.allocate(length + more);
        out.put(bytes, 0, length);
        out.put(rest);
        out.flip();
        out.allowBufferDispose(true);
        rest.tryDispose();
        return out;
    }

    private void ensure(int more) {
        if (length + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(length + more, bytes.length * 2));
        }
    }
}
