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
    private static final int INITIAL_FIELDS = 24;

    int start;
    int methodEnd;
    int targetEnd;
    int reasonStart;
    int lineEnd;
    int status;
    int end;
    private int fields;
    private int[] nameStarts = new int[INITIAL_FIELDS];
    private int[] colons = new int[INITIAL_FIELDS];
    private int[] valueEnds = new int[INITIAL_FIELDS];

    void clear(int from) {
        start = from;
        methodEnd = targetEnd = reasonStart = lineEnd = end = -1;
        status = 0;
        fields = 0;
    }

    void markFieldStart(int at) {
        if (fields == nameStarts.length) {
            int grown = fields * 2;
            nameStarts = Arrays.copyOf(nameStarts, grown);
            colons = Arrays.copyOf(colons, grown);
            valueEnds = Arrays.copyOf(valueEnds, grown);
        }
        nameStarts[fields] = at;
    }

    void markColon(int at) {
        colons[fields] = at;
    }

    void markValueEnd(int at) {
        valueEnds[fields++] = at;
    }

    /** The bytes were moved by {@code delta} (a head that spans reads is gathered in one array). */
    void shift(int delta) {
        start += delta;
        methodEnd = moved(methodEnd, delta);
        targetEnd = moved(targetEnd, delta);
        reasonStart = moved(reasonStart, delta);
        lineEnd = moved(lineEnd, delta);
        end = moved(end, delta);
        for (int i = 0; i < fields; i++) {
            nameStarts[i] += delta;
            colons[i] += delta;
            valueEnds[i] += delta;
        }
        // A field whose name began before the move but has not reached its colon yet.
        if (fields < nameStarts.length) {
            nameStarts[fields] += delta;
            colons[fields] += delta;
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
        return nameStarts[field];
    }

    /** The colon after the name: where the name ends. */
    public int colon(int field) {
        return colons[field];
    }

    /** The CR or LF that ends the field line. */
    public int valueEnd(int field) {
        return valueEnds[field];
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
