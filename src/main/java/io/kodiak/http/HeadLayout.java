package io.kodiak.http;

import java.util.Arrays;

/**
 * Where the parts of one message head lie in the bytes it was scanned from: indexes, not copies.
 * {@link HeadScanner} fills it as it crosses each delimiter; one instance per connection serves
 * every head that connection reads, so parsing a head allocates nothing once the field arrays
 * have grown to the connection's largest head.
 *
 * <p>For a request: the method is {@code [start, methodEnd)}, the target {@code (methodEnd,
 * targetEnd)}, the version {@code (targetEnd, lineEnd)}. For a status line: the version is
 * {@code [start, start + 8)}, the reason {@code [reasonStart, lineEnd)} (empty when absent). Field
 * {@code i}: name {@code [nameStart(i), colon(i))}, raw value {@code (colon(i), valueEnd(i))},
 * whitespace around it included.
 */
public final class HeadLayout {
    /** Enough for the usual head; a connection that sees more grows its array once. */
    private static final int INITIAL_FIELDS = 16;
    /** Per field: name start, colon, value end, side by side in one array (one object per connection, not three). */
    private static final int STRIDE = 3;

    int start;
    int methodEnd;
    int targetEnd;
    int reasonStart;
    int lineEnd;
    int status;
    int end;
    private int fields;
    private int[] marks = new int[INITIAL_FIELDS * STRIDE];

    void clear(int from) {
        start = from;
        methodEnd = targetEnd = reasonStart = lineEnd = end = -1;
        status = 0;
        fields = 0;
    }

    void markFieldStart(int at) {
        if (fields * STRIDE == marks.length) {
            marks = Arrays.copyOf(marks, marks.length * 2);
        }
        marks[fields * STRIDE] = at;
    }

    void markColon(int at) {
        marks[fields * STRIDE + 1] = at;
    }

    void markValueEnd(int at) {
        marks[fields++ * STRIDE + 2] = at;
    }

    /** The bytes were moved by {@code delta} (a head that spans reads is gathered in one array). */
    void shift(int delta) {
        start += delta;
        methodEnd = moved(methodEnd, delta);
        targetEnd = moved(targetEnd, delta);
        reasonStart = moved(reasonStart, delta);
        lineEnd = moved(lineEnd, delta);
        end = moved(end, delta);
        for (int i = 0; i < fields * STRIDE; i++) {
            marks[i] += delta;
        }
        // A field whose name began before the move but has not reached its colon yet.
        if (fields * STRIDE < marks.length) {
            marks[fields * STRIDE] += delta;
            marks[fields * STRIDE + 1] += delta;
        }
    }

    private static int moved(int index, int delta) {
        return index < 0 ? index : index + delta;
    }

    public int start() {
        return start;
    }

    /** Just after the head's last LF: where the body begins. */
    public int end() {
        return end;
    }

    public int fieldCount() {
        return fields;
    }

    public int nameStart(int field) {
        return marks[field * STRIDE];
    }

    /** The colon after the name: where the name ends. */
    public int colon(int field) {
        return marks[field * STRIDE + 1];
    }

    /** The CR or LF that ends the field line. */
    public int valueEnd(int field) {
        return marks[field * STRIDE + 2];
    }

    public int methodEnd() {
        return methodEnd;
    }

    public int targetEnd() {
        return targetEnd;
    }

    public int lineEnd() {
        return lineEnd;
    }

    public int reasonStart() {
        return reasonStart;
    }

    public int status() {
        return status;
    }
}
