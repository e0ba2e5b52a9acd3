package io.kodiak.http;

import org.glassfish.grizzly.Buffer;

import java.util.Arrays;

/**
 * Reads one message head at a time from a connection's successive reads, checking every byte
 * with {@link HeadScanner} and recording where its parts lie in a {@link HeadLayout}.
 *
 * <p>A head that arrives whole in one heap buffer (nearly all of them) is scanned where it lies,
 * with no copy. A head that spans reads, or arrives in a buffer without an array, is gathered in
 * this reader's own array, at most {@code maxHeadSize} bytes, and the scan resumes where it
 * stopped: each byte is looked at once however the head is split.
 */
public final class HeadReader {
    private final HeadScanner scanner;
    private final HeadLayout layout = new HeadLayout();
    private final int maxHeadSize;
    private final Violation tooLargeInStartLine;
    /** Each thread's array for heads that arrive whole in a buffer without an array of its own. */
    private static final ThreadLocal<byte[]> SCRATCH = ThreadLocal.withInitial(() -> new byte[2048]);
    private byte[] gathered = new byte[0];
    private int gatheredLength;
    private byte[] headArray;

    /**
     * {@code tooLargeInStartLine}: the violation for a head that reaches {@code maxHeadSize}
     * while its start line is still being read (a request line too long: 414 rather than 431).
     */
    public HeadReader(HeadScanner.Start start, int maxHeadSize, Violation tooLargeInStartLine) {
        this.scanner = new HeadScanner(start, layout);
        this.maxHeadSize = maxHeadSize;
        this.tooLargeInStartLine = tooLargeInStartLine;
    }

    /** True when part of a head has been read and the rest is awaited. */
    public boolean isPartial() {
        return gatheredLength > 0;
    }

    /**
     * Takes head bytes from {@code buffer}'s position on. Returns true when the head is complete:
     * the buffer's position is then just after it, and {@link #array()} and {@link #layout()}
     * describe it until the next call. Returns false when every byte was taken and more are
     * needed. Throws {@link HttpViolationException} on a byte the head may not have, or when it
     * would exceed the maximum size.
     */
    public boolean read(Buffer buffer) {
        int position = buffer.position();
        int available = buffer.limit() - position;
        if (gatheredLength == 0 && buffer.hasArray()) {
            byte[] array = buffer.array();
            int from = buffer.arrayOffset() + position;
            begin(from);
            int to = from + Math.min(available, maxHeadSize);
            int end = scanner.scan(array, from, to);
            if (end >= 0) {
                buffer.position(position + end - from);
                headArray = array;
                return true;
            }
            tooLargeUnless(available < maxHeadSize);
            // Incomplete: gather what arrived and go on from there with the next read.
            gather(array, from, available);
            layout.shift(-from);
            buffer.position(buffer.limit());
            return false;
        }
        if (gatheredLength == 0) {
            return readFresh(buffer, position, available);
        }
        int scanFrom = gatheredLength;
        int taken = Math.min(available, maxHeadSize - gatheredLength);
        ensureRoom(gatheredLength + taken);
        buffer.get(gathered, gatheredLength, taken);
        gatheredLength += taken;
        int end = scanner.scan(gathered, scanFrom, gatheredLength);
        if (end >= 0) {
            // What followed the head in this read stays in the buffer: the body, or the next message.
            buffer.position(position + end - scanFrom);
            headArray = gathered;
            gatheredLength = 0;
            return true;
        }
        tooLargeUnless(gatheredLength < maxHeadSize);
        return false;
    }

    /**
     * A new head in a buffer without an array (pooled direct memory): copied into the thread's
     * scratch array and scanned there. A head complete in this read stays there, valid until the
     * thread's next read of a new head (the caller is done with it before: {@link #clear}); only a
     * head that spans reads is kept in the connection's own array, so an idle connection holds no
     * copy of its last head.
     */
    private boolean readFresh(Buffer buffer, int position, int available) {
        int taken = Math.min(available, maxHeadSize);
        byte[] scratch = SCRATCH.get();
        if (scratch.length < taken) {
            scratch = new byte[Math.max(taken, Math.min(maxHeadSize, scratch.length * 2))];
            SCRATCH.set(scratch);
        }
        buffer.get(scratch, 0, taken);
        begin(0);
        int end = scanner.scan(scratch, 0, taken);
        if (end >= 0) {
            buffer.position(position + end);
            headArray = scratch;
            return true;
        }
        tooLargeUnless(taken < maxHeadSize);
        gather(scratch, 0, taken);
        return false;
    }

    private void begin(int from) {
        scanner.reset();
        layout.clear(from);
    }

    private void tooLargeUnless(boolean roomLeft) {
        if (!roomLeft) {
            throw new HttpViolationException(scanner.inStartLine() ? tooLargeInStartLine : Violation.HEAD_TOO_LARGE);
        }
    }

    private void gather(byte[] array, int from, int length) {
        ensureRoom(length);
        System.arraycopy(array, from, gathered, 0, length);
        gatheredLength = length;
    }

    private void ensureRoom(int length) {
        if (gathered.length < length) {
            gathered = Arrays.copyOf(gathered, Math.min(maxHeadSize, Math.max(length, Math.max(256, gathered.length * 2))));
        }
    }

    /**
     * Forgets the last head and any partial one (the connection is closing, or the head has been
     * acted on). A complete head lies in the read buffer it arrived in, often a slice of a memory
     * manager's 64 KiB pool chunk: a connection that kept pointing at it while it waits for an
     * answer, or idles between requests, would keep the whole chunk alive.
     */
    public void clear() {
        gatheredLength = 0;
        headArray = null;
    }

    /** The array the last complete head lies in, as {@link #layout()} indexes it. */
    public byte[] array() {
        return headArray;
    }

    public HeadLayout layout() {
        return layout;
    }
}
