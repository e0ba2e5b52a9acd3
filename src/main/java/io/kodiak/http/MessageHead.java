package io.kodiak.http;

import java.util.Arrays;

/**
 * What both kinds of head share once parsed: the bytes they lie in (as their {@link HeadLayout}
 * indexes them), the name of each field, and the fields the proxy acts on in both directions:
 * framing (RFC 9112 §6) and the Connection options (RFC 9110 §7.6.1). One instance per
 * connection, filled again for each message: nothing here is allocated per message.
 */
public abstract class MessageHead {
    private static final byte[] CHUNKED = Ascii.bytes("chunked");
    private static final byte[] CLOSE = Ascii.bytes("close");
    private static final byte[] KEEP_ALIVE = Ascii.bytes("keep-alive");
    private static final byte[] UPGRADE = Ascii.bytes("upgrade");
    private static final int[] NO_OPTIONS = new int[0];
    private static final long MAX_LENGTH_BEFORE_DIGIT = (Long.MAX_VALUE - 9) / 10;

    byte[] array;
    HeadLayout layout;
    /** HTTP/1.1 or later (answered as 1.1), else 1.0. */
    boolean http11;
    private byte[] names = new byte[24];
    private long contentLength;
    private boolean chunked;
    private boolean closeOption;
    private boolean keepAliveOption;
    private boolean upgradeOption;
    /**
     * Start and end of each Connection option that names a field to drop; made at the first such
     * option, which most connections never send.
     */
    private int[] namedOptions = NO_OPTIONS;
    private int namedOptionCount;

    /** Reads the fields of the head {@code reader} has just completed. */
    final void parseFields(HeadReader reader) {
        array = reader.array();
        layout = reader.layout();
        int count = layout.fieldCount();
        if (names.length < count) {
            names = new byte[Math.max(count, names.length * 2)];
        }
        contentLength = -1;
        chunked = closeOption = keepAliveOption = upgradeOption = false;
        namedOptionCount = 0;
        int transferEncodings = 0;
        for (int i = 0; i < count; i++) {
            FieldName name = FieldName.of(array, layout.nameStart(i), layout.colon(i));
            names[i] = (byte) name.ordinal();
            switch (name) {
                case CONTENT_LENGTH -> contentLength(i);
                case TRANSFER_ENCODING -> {
                    transferEncodings++;
                    chunked = Ascii.equalsIgnoreCase(array, valueStart(i), valueEnd(i), CHUNKED);
                }
                case CONNECTION -> connectionOptions(i);
                default -> onField(name, i);
            }
        }
        if (transferEncodings > 0) {
            // RFC 9112 §6.1: chunked as the one coding of one field, on HTTP/1.1 only (any other
            // coding leaves a body delimited by the close and still encoded), never with
            // Content-Length (a smuggling vector).
            if (transferEncodings > 1 || !chunked || !http11) {
                throw new HttpViolationException(Violation.TRANSFER_CODING_UNSUPPORTED);
            }
            if (contentLength >= 0) {
                throw new HttpViolationException(Violation.CONTENT_LENGTH_WITH_TRANSFER_ENCODING);
            }
        }
    }

    /** A field other than the framing and Connection fields, for the subclass to note. */
    abstract void onField(FieldName name, int field);

    /** RFC 9110 §8.6: 1*DIGIT; several fields must agree (a list "5, 5" is refused, as nginx does). */
    private void contentLength(int field) {
        int from = valueStart(field);
        int to = valueEnd(field);
        if (from == to) {
            throw new HttpViolationException(Violation.CONTENT_LENGTH_SYNTAX);
        }
        long value = 0;
        for (int i = from; i < to; i++) {
            int digit = array[i] - '0';
            if (digit < 0 || digit > 9 || value > MAX_LENGTH_BEFORE_DIGIT) {
                throw new HttpViolationException(Violation.CONTENT_LENGTH_SYNTAX);
            }
            value = value * 10 + digit;
        }
        if (contentLength >= 0 && contentLength != value) {
            throw new HttpViolationException(Violation.CONFLICTING_CONTENT_LENGTHS);
        }
        contentLength = value;
    }

    /** RFC 9110 §7.6.1: Connection = #connection-option; each option is a token, compared case-insensitively. */
    private void connectionOptions(int field) {
        int to = valueEnd(field);
        int i = valueStart(field);
        while (i < to) {
            int end = i;
            while (end < to && array[end] != ',') {
                end++;
            }
            int optionStart = Ascii.skipOws(array, i, end);
            int optionEnd = Ascii.trimOws(array, optionStart, end);
            if (optionEnd > optionStart) {
                if (Ascii.equalsIgnoreCase(array, optionStart, optionEnd, CLOSE)) {
                    closeOption = true;
                } else if (Ascii.equalsIgnoreCase(array, optionStart, optionEnd, KEEP_ALIVE)) {
                    keepAliveOption = true;
                } else if (Ascii.equalsIgnoreCase(array, optionStart, optionEnd, UPGRADE)) {
                    upgradeOption = true;
                } else {
                    addNamedOption(optionStart, optionEnd);
                }
            }
            i = end + 1;
        }
    }

    private void addNamedOption(int from, int to) {
        if (namedOptionCount * 2 == namedOptions.length) {
            namedOptions = Arrays.copyOf(namedOptions, Math.max(8, namedOptions.length * 2));
        }
        namedOptions[namedOptionCount * 2] = from;
        namedOptions[namedOptionCount * 2 + 1] = to;
        namedOptionCount++;
    }

    /** True when the Connection field names field {@code field}'s name (it is hop-by-hop for this message). */
    public final boolean namedByConnection(int field) {
        if (namedOptionCount == 0) {
            return false;
        }
        int nameStart = layout.nameStart(field);
        int nameLength = layout.colon(field) - nameStart;
        for (int k = 0; k < namedOptionCount; k++) {
            int from = namedOptions[k * 2];
            int to = namedOptions[k * 2 + 1];
            if (to - from == nameLength && sameIgnoringCase(from, nameStart, nameLength)) {
                return true;
            }
        }
        return false;
    }

    private boolean sameIgnoringCase(int a, int b, int length) {
        for (int i = 0; i < length; i++) {
            int x = array[a + i];
            int y = array[b + i];
            if (x != y && (x | 0x20) != (y | 0x20)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Lets go of the bytes the head was parsed from once it has been acted on, for the reason
     * {@link HeadReader#clear()} gives; the parsed values stay, {@link #array()} is null until the
     * next head.
     */
    public final void forgetBytes() {
        array = null;
    }

    public final byte[] array() {
        return array;
    }

    public final HeadLayout layout() {
        return layout;
    }

    public final int fieldCount() {
        return layout.fieldCount();
    }

    public final FieldName name(int field) {
        return FieldName.of(names[field]);
    }

    /** The field's value without the whitespace around it. */
    public final int valueStart(int field) {
        return Ascii.skipOws(array, layout.colon(field) + 1, layout.valueEnd(field));
    }

    public final int valueEnd(int field) {
        return Ascii.trimOws(array, valueStart(field), layout.valueEnd(field));
    }

    /** The value of the first field named {@code name} (any case), or null: for the few lookups off the fast path. */
    public final String firstValue(String name) {
        byte[] lowerCase = name.toLowerCase(java.util.Locale.ROOT).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        for (int field = 0; field < fieldCount(); field++) {
            if (Ascii.equalsIgnoreCase(array, layout.nameStart(field), layout.colon(field), lowerCase)) {
                int start = valueStart(field);
                return new String(array, start, valueEnd(field) - start, java.nio.charset.StandardCharsets.ISO_8859_1);
            }
        }
        return null;
    }

    public final boolean isHttp11() {
        return http11;
    }

    /** The Content-Length, or -1 when there is none. */
    public final long contentLength() {
        return contentLength;
    }

    public final boolean isChunked() {
        return chunked;
    }

    public final boolean hasKeepAliveOption() {
        return keepAliveOption;
    }

    public final boolean hasUpgradeOption() {
        return upgradeOption;
    }

    /** HTTP/1.x persistence (RFC 9112 §9.3): 1.1 unless "close", 1.0 only with "keep-alive". */
    public final boolean wantsKeepAlive() {
        return !closeOption && (http11 || keepAliveOption);
    }

    /** Major version 1, minor from the digit at {@code minorDigit}: 0 is 1.0, anything higher is answered as 1.1. */
    final void version(int majorDigit) {
        if (array[majorDigit] != '1') {
            throw new HttpViolationException(Violation.VERSION_NOT_SUPPORTED);
        }
        http11 = array[majorDigit + 2] != '0';
    }
}
