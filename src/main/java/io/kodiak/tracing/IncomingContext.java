package io.kodiak.tracing;

import io.kodiak.http.Ascii;
import io.kodiak.http.FieldName;
import io.kodiak.http.RequestHead;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;

import static java.nio.charset.StandardCharsets.US_ASCII;

/**
 * The trace context a request brings, read from its head as W3C Trace Context (level 1 and the
 * forward-compatible rule for later versions) defines it: one traceparent field, version,
 * trace id, parent id and flags in lower-case hex, neither id all zeros, version ff refused.
 * Anything else (two traceparent fields, upper case, a wrong length) is no context: the exchange
 * starts a new trace. Kodiak reads tracestate not at all: it is passed on as the client sent it,
 * and only beside a valid traceparent.
 */
final class IncomingContext {
    private static final byte[] TRACEPARENT = "traceparent".getBytes(US_ASCII);
    /** "00-" + 32 + "-" + 16 + "-" + 2. */
    private static final int LENGTH = 55;

    private IncomingContext() {
    }

    /** The remote parent {@code head} names, or null when it names none or an invalid one. */
    static SpanContext of(RequestHead head) {
        byte[] in = head.array();
        int found = -1;
        for (int i = 0; i < head.fieldCount(); i++) {
            if (head.name(i) == FieldName.OTHER && isNamed(head, i, TRACEPARENT)) {
                if (found >= 0) {
                    // Two values, or a list of them: which one is the parent cannot be told.
                    return null;
                }
                found = i;
            }
        }
        return found < 0 ? null : parse(in, head.valueStart(found), head.valueEnd(found));
    }

    private static boolean isNamed(RequestHead head, int field, byte[] lowerCase) {
        return Ascii.equalsIgnoreCase(head.array(), head.layout().nameStart(field), head.layout().colon(field), lowerCase);
    }

    /** The context in {@code value[from, to)}, or null when it is not a valid traceparent. */
    static SpanContext parse(byte[] value, int from, int to) {
        int length = to - from;
        if (length < LENGTH || !isHex(value, from, 2) || value[from + 2] != '-' || value[from + 35] != '-'
                || value[from + 52] != '-' || !isHex(value, from + 3, 32) || !isHex(value, from + 36, 16)
                || !isHex(value, from + 53, 2)) {
            return null;
        }
        boolean version00 = value[from] == '0' && value[from + 1] == '0';
        if (value[from] == 'f' && value[from + 1] == 'f') {
            return null;
        }
        // Version 00 is exactly 55 characters; a later version may add fields after a dash.
        if (version00 ? length != LENGTH : length > LENGTH && value[from + LENGTH] != '-') {
            return null;
        }
        if (isZeros(value, from + 3, 32) || isZeros(value, from + 36, 16)) {
            return null;
        }
        String traceId = new String(value, from + 3, 32, US_ASCII);
        String parentId = new String(value, from + 36, 16, US_ASCII);
        byte flags = (byte) (hex(value[from + 53]) << 4 | hex(value[from + 54]));
        // A later version's flags beyond "sampled" mean nothing to a version 00 reader.
        if (!version00) {
            flags &= 0x01;
        }
        return SpanContext.createFromRemoteParent(traceId, parentId, TraceFlags.fromByte(flags), TraceState.getDefault());
    }

    private static boolean isHex(byte[] value, int from, int count) {
        for (int i = from; i < from + count; i++) {
            byte b = value[i];
            if (!(b >= '0' && b <= '9' || b >= 'a' && b <= 'f')) {
                return false;
            }
        }
        return true;
    }

    private static boolean isZeros(byte[] value, int from, int count) {
        for (int i = from; i < from + count; i++) {
            if (value[i] != '0') {
                return false;
            }
        }
        return true;
    }

    private static int hex(byte b) {
        return b <= '9' ? b - '0' : b - 'a' + 10;
    }
}
