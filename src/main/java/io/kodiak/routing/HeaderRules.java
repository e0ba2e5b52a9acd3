package io.kodiak.routing;

import io.kodiak.http.Ascii;
import io.kodiak.http.FieldName;
import io.kodiak.http.HeadWriter;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A route's rules for the fields of one direction (request-headers or response-headers): set
 * replaces every field of the name with one line, add appends a line, remove deletes every field
 * of the name, applied in that order; a name both added or set and removed is therefore absent.
 * The fields Kodiak writes itself (Host, X-Forwarded-*) are fields like any other here: setting
 * Host replaces the route's, removing X-Forwarded-For sends none. Framing and hop-by-hop fields
 * cannot be named (the load refuses them): they belong to each connection, not to the message.
 *
 * <p>Applied while the head is written: each passing field's name is compared with the names the
 * rules drop (a known name by its {@link FieldName}, any other by bytes), then the set and add lines
 * are appended. An empty rule set costs one test per message.
 */
public final class HeaderRules {
    public static final HeaderRules NONE = new HeaderRules(Map.of(), List.of(), List.of());
    private static final Pattern HOST_VALUE =
            Pattern.compile("(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9._~-]+)(:[0-9]{1,5})?");

    /** Raised for a rule that cannot be applied; the message says what was expected. */
    public static final class Invalid extends Exception {
        public Invalid(String expected) {
            super(expected, null, false, false);
        }
    }

    /** One line to append: the name as configured and its value. */
    private record Line(byte[] name, ValueTemplate value) {
    }

    private final Map<String, String> set;
    private final List<Map.Entry<String, String>> add;
    private final List<String> remove;
    private final Line[] appended;
    private final boolean[] dropsKnown = new boolean[FieldName.values().length];
    /** Lower-case names of the dropped fields that are not a {@link FieldName}. */
    private final byte[][] dropsOther;

    private HeaderRules(Map<String, String> set, List<Map.Entry<String, String>> add, List<String> remove) {
        this.set = set;
        this.add = add;
        this.remove = remove;
        this.appended = new Line[0];
        this.dropsOther = new byte[0][];
    }

    private HeaderRules(Map<String, String> set, List<Map.Entry<String, String>> add, List<String> remove,
                        Line[] appended, List<byte[]> dropsOther, List<FieldName> dropsKnown) {
        this.set = set;
        this.add = add;
        this.remove = remove;
        this.appended = appended;
        this.dropsOther = dropsOther.toArray(byte[][]::new);
        for (FieldName known : dropsKnown) {
            this.dropsKnown[known.ordinal()] = true;
        }
    }

    /**
     * Compiles the rules of one direction ({@code request}: the request's, where Expect is also
     * Kodiak's own and Host may only be set). {@code set} in the order given.
     */
    public static HeaderRules of(Map<String, String> set, List<Map.Entry<String, String>> add, List<String> remove,
                                 boolean request) throws Invalid {
        if (set.isEmpty() && add.isEmpty() && remove.isEmpty()) {
            return NONE;
        }
        List<String> removed = new ArrayList<>();
        for (String name : remove) {
            checkName(name, request, "remove");
            removed.add(name.toLowerCase(Locale.ROOT));
        }
        List<Line> lines = new ArrayList<>();
        List<String> dropped = new ArrayList<>(removed);
        for (Map.Entry<String, String> e : set.entrySet()) {
            checkName(e.getKey(), request, "set");
            ValueTemplate value = ValueTemplate.parse(e.getValue());
            if (request && e.getKey().equalsIgnoreCase("host") && !value.hasVariables()
                    && !HOST_VALUE.matcher(e.getValue()).matches()) {
                // The upstream reads this as the request's authority: one host, an optional port.
                throw new Invalid("a Host value of one host name or address and an optional :port");
            }
            String lower = e.getKey().toLowerCase(Locale.ROOT);
            dropped.add(lower);
            if (!removed.contains(lower)) {
                lines.add(new Line(e.getKey().getBytes(StandardCharsets.US_ASCII), value));
            }
        }
        for (Map.Entry<String, String> e : add) {
            checkName(e.getKey(), request, "add");
            ValueTemplate value = ValueTemplate.parse(e.getValue());
            if (!removed.contains(e.getKey().toLowerCase(Locale.ROOT))) {
                lines.add(new Line(e.getKey().getBytes(StandardCharsets.US_ASCII), value));
            }
        }
        List<byte[]> other = new ArrayList<>();
        List<FieldName> known = new ArrayList<>();
        for (String name : dropped) {
            byte[] bytes = name.getBytes(StandardCharsets.US_ASCII);
            FieldName fieldName = FieldName.of(bytes, 0, bytes.length);
            if (fieldName == FieldName.OTHER) {
                other.add(bytes);
            } else {
                known.add(fieldName);
            }
        }
        return new HeaderRules(Map.copyOf(set), List.copyOf(add), List.copyOf(remove), lines.toArray(Line[]::new),
                other, known);
    }

    /** A field name a rule may use: a token (RFC 9110 §5.1), not a framing or hop-by-hop field. */
    private static void checkName(String name, boolean request, String rule) throws Invalid {
        if (!FieldName.isToken(name)) {
            throw new Invalid("a field name of token characters (letters, digits and !#$%&'*+-.^_`|~)");
        }
        byte[] bytes = name.getBytes(StandardCharsets.US_ASCII);
        FieldName known = FieldName.of(bytes, 0, bytes.length);
        if (known == FieldName.HTTP2_SETTINGS && rule.equals("remove")) {
            // Never forwarded since Kodiak drops it itself; removing it stays valid, as it was when
            // remove = ["HTTP2-Settings"] was the usual guard against h2c smuggling.
            return;
        }
        if (known.isHopByHop() || known == FieldName.CONTENT_LENGTH) {
            throw new Invalid("a field other than " + name + " (framing and hop-by-hop fields belong to each connection)");
        }
        if (request && known == FieldName.EXPECT) {
            throw new Invalid("a field other than Expect (Kodiak answers 100-continue itself)");
        }
        if (request && known == FieldName.HOST && !rule.equals("set")) {
            throw new Invalid("Host under set only (a request has exactly one Host)");
        }
    }

    public boolean isEmpty() {
        return this == NONE;
    }

    /** True when a field Kodiak writes itself (Host, X-Forwarded-*) is replaced or removed by these rules. */
    public boolean drops(FieldName known) {
        return dropsKnown[known.ordinal()];
    }

    /** True when the field named {@code array[from, to)} (known as {@code known}) is replaced or removed. */
    public boolean drops(FieldName known, byte[] array, int from, int to) {
        if (known != FieldName.OTHER) {
            return dropsKnown[known.ordinal()];
        }
        for (byte[] name : dropsOther) {
            if (name.length == to - from && Ascii.equalsIgnoreCase(array, from, to, name)) {
                return true;
            }
        }
        return false;
    }

    /** Appends the set and add lines, each value with this exchange's variables. */
    public void appendTo(HeadWriter out, HeaderVariable.Values values) {
        for (Line line : appended) {
            out.name(line.name());
            line.value().writeTo(out, values);
            out.crlf();
        }
    }

    /**
     * The set and add lines as name and value, each value with this exchange's variables (for a
     * protocol that does not write field lines: HTTP/2's HPACK). Names as configured.
     */
    public void forEachAppended(HeaderVariable.Values values, java.util.function.BiConsumer<String, String> to) {
        for (Line line : appended) {
            HeadWriter value = new HeadWriter(64);
            line.value().writeTo(value, values);
            to.accept(new String(line.name(), java.nio.charset.StandardCharsets.ISO_8859_1), value.text());
        }
    }

    /** True when some appended value uses {@code variable}. */
    public boolean uses(HeaderVariable variable) {
        for (Line line : appended) {
            if (line.value().uses(variable)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof HeaderRules rules && set.equals(rules.set) && add.equals(rules.add)
                && remove.equals(rules.remove);
    }

    @Override
    public int hashCode() {
        return Objects.hash(set, add, remove);
    }

    @Override
    public String toString() {
        return isEmpty() ? "none" : "set " + set + ", add " + add + ", remove " + remove;
    }
}
