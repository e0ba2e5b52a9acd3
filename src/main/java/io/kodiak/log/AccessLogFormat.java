package io.kodiak.log;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * proxy.access-log.format: the line written per request, nginx's {@code log_format} style
 * ({@code $name} or {@code ${name}} in literal text), or {@code "json"} for one JSON object per
 * line with every common field. Parsed once at load; an unknown variable is refused by name.
 * In text lines a missing value is written {@code -}, and in any value {@code "}, {@code \},
 * control and non-ASCII bytes are written {@code \xHH} (nginx's escaping), so a client's bytes
 * can neither end a quoted field nor start a line.
 */
public final class AccessLogFormat {
    /** Each thread's line under construction: one builder reused, not one (and its growth) per line. */
    private static final ThreadLocal<StringBuilder> LINE = ThreadLocal.withInitial(() -> new StringBuilder(256));

    /** Today's line: client, request line, status, bytes in and out, servers tried, upstream and total time (ms), TLS protocol. */
    public static final String DEFAULT = "$remote_addr \"$request_method $request_uri\" $status $request_body_bytes "
            + "$body_bytes_sent $upstream_addr $upstream_response_time_ms $request_time_ms $ssl_protocol";
    public static final String JSON = "json";
    private static final JsonFactory JSON_FACTORY = new JsonFactory();
    private static final DateTimeFormatter LOCAL_TIME = DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss Z", Locale.ROOT);
    private static final DateTimeFormatter ISO_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ssxxx", Locale.ROOT);

    /** The variables a format may use; {@code $http_NAME} (a request header) comes on top. */
    public enum Variable {
        REMOTE_ADDR, REQUEST, REQUEST_METHOD, REQUEST_URI, URI, ARGS, SERVER_PROTOCOL, STATUS,
        REQUEST_BODY_BYTES, BODY_BYTES_SENT, UPSTREAM_ADDR, UPSTREAM_RESPONSE_TIME, UPSTREAM_RESPONSE_TIME_MS,
        REQUEST_TIME, REQUEST_TIME_MS, SSL_PROTOCOL, REQUEST_ID, HOST, SCHEME, ROUTE, TIME_ISO8601, TIME_LOCAL, MSEC,
        TRACE_ID, SPAN_ID,
        /** A request header's value: its name is in {@link #requestHeaders}. */
        HTTP;

        final String configName = name().toLowerCase(Locale.ROOT);

        static List<String> names() {
            List<String> names = new ArrayList<>();
            for (Variable v : values()) {
                names.add(v == HTTP ? "$http_NAME" : "$" + v.configName);
            }
            return names;
        }
    }

    /** Raised for a format that cannot be used; the message says what was expected. */
    public static final class Invalid extends Exception {
        public Invalid(String expected) {
            super(expected, null, false, false);
        }
    }

    private final String source;
    private final boolean json;
    /** Each part a String (literal), a Variable, or an Integer (index of a header in {@link #headers}). */
    private final Object[] parts;
    private final String[] headers;
    private final boolean[] uses = new boolean[Variable.values().length];

    private AccessLogFormat(String source, boolean json, Object[] parts, String[] headers) {
        this.source = source;
        this.json = json;
        this.parts = parts;
        this.headers = headers;
        for (Object part : parts) {
            if (part instanceof Variable v) {
                uses[v.ordinal()] = true;
            }
        }
        if (json) {
            Arrays.fill(uses, true);
            uses[Variable.HTTP.ordinal()] = false;
        }
    }

    public static AccessLogFormat parse(String format) throws Invalid {
        if (format.equals(JSON)) {
            return new AccessLogFormat(format, true, new Object[0], new String[0]);
        }
        if (format.isBlank()) {
            throw new Invalid("\"json\" or a line with nginx-style variables, e.g. " + DEFAULT);
        }
        if (format.chars().anyMatch(c -> c < 0x20 && c != '\t' || c == 0x7f)) {
            throw new Invalid("a format on one line, without control characters");
        }
        List<Object> parts = new ArrayList<>();
        List<String> headers = new ArrayList<>();
        StringBuilder literal = new StringBuilder();
        int i = 0;
        while (i < format.length()) {
            char c = format.charAt(i);
            if (c != '$') {
                literal.append(c);
                i++;
                continue;
            }
            int start = i + 1;
            boolean braced = start < format.length() && format.charAt(start) == '{';
            int from = braced ? start + 1 : start;
            int end = from;
            while (end < format.length() && isNameChar(format.charAt(end))) {
                end++;
            }
            if (braced && (end >= format.length() || format.charAt(end) != '}')) {
                throw new Invalid("${name} closed by } in the format");
            }
            String name = format.substring(from, end);
            Object part = variable(name, headers);
            if (part == null) {
                throw new Invalid("variables among " + Variable.names() + " (unknown: $" + name + ")");
            }
            if (!literal.isEmpty()) {
                parts.add(literal.toString());
                literal.setLength(0);
            }
            parts.add(part);
            i = braced ? end + 1 : end;
        }
        if (!literal.isEmpty()) {
            parts.add(literal.toString());
        }
        return new AccessLogFormat(format, false, parts.toArray(), headers.toArray(String[]::new));
    }

    private static boolean isNameChar(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_';
    }

    /** The part for {@code $name}: a Variable, a header's index (adding it to {@code headers}), or null. */
    private static Object variable(String name, List<String> headers) {
        if (name.startsWith("http_") && name.length() > 5) {
            // nginx's convention: the header name in lower case, dashes written as underscores.
            String header = name.substring(5).toLowerCase(Locale.ROOT).replace('_', '-');
            int index = headers.indexOf(header);
            if (index < 0) {
                headers.add(header);
                index = headers.size() - 1;
            }
            return index;
        }
        for (Variable v : Variable.values()) {
            if (v != Variable.HTTP && v.configName.equals(name)) {
                return v;
            }
        }
        return null;
    }

    /** True when lines need {@code variable} (so the caller computes it only then). */
    public boolean uses(Variable variable) {
        return uses[variable.ordinal()];
    }

    /** The request headers the format logs (lower-case names), in the order {@link AccessLogEntry#headers} holds their values. */
    public String[] requestHeaders() {
        return headers.clone();
    }

    public boolean logsHeaders() {
        return headers.length > 0;
    }

    public String line(AccessLogEntry entry) {
        return json ? json(entry) : text(entry);
    }

    private String text(AccessLogEntry e) {
        StringBuilder line = LINE.get();
        if (line.capacity() > 8192) {
            // A line with a huge field once: not kept for the thread's life.
            line = new StringBuilder(256);
            LINE.set(line);
        }
        line.setLength(0);
        for (Object part : parts) {
            if (part instanceof String literal) {
                line.append(literal);
            } else if (part instanceof Integer header) {
                String[] values = e.headers();
                escaped(line, values == null ? null : values[header]);
            } else {
                append(line, (Variable) part, e);
            }
        }
        return line.toString();
    }

    private static void append(StringBuilder line, Variable variable, AccessLogEntry e) {
        switch (variable) {
            case REMOTE_ADDR -> escaped(line, e.clientAddress());
            case REQUEST -> {
                escaped(line, e.method());
                line.append(' ');
                requestUri(line, e);
                line.append(' ');
                escaped(line, e.protocol());
            }
            case REQUEST_METHOD -> escaped(line, e.method());
            case REQUEST_URI -> requestUri(line, e);
            case URI -> escaped(line, e.path());
            case ARGS -> escaped(line, e.query());
            case SERVER_PROTOCOL -> escaped(line, e.protocol());
            case STATUS -> line.append(e.status());
            case REQUEST_BODY_BYTES -> line.append(e.bytesIn());
            case BODY_BYTES_SENT -> line.append(e.bytesOut());
            case UPSTREAM_ADDR -> escaped(line, e.upstream());
            case UPSTREAM_RESPONSE_TIME -> seconds(line, e.upstreamNanos());
            case UPSTREAM_RESPONSE_TIME_MS -> millis(line, e.upstreamNanos());
            case REQUEST_TIME -> seconds(line, e.totalNanos());
            case REQUEST_TIME_MS -> millis(line, e.totalNanos());
            case SSL_PROTOCOL -> escaped(line, e.tlsProtocol());
            case REQUEST_ID -> escaped(line, e.requestId());
            case HOST -> escaped(line, e.host());
            case SCHEME -> escaped(line, e.scheme());
            case ROUTE -> escaped(line, e.route());
            case TIME_ISO8601 -> line.append(ISO_TIME.format(local(e.timeMillis())));
            case TIME_LOCAL -> line.append(LOCAL_TIME.format(local(e.timeMillis())));
            case MSEC -> thousandths(line.append(e.timeMillis() / 1000).append('.'), e.timeMillis() % 1000);
            case TRACE_ID -> escaped(line, e.traceId());
            case SPAN_ID -> escaped(line, e.spanId());
            case HTTP -> throw new IllegalStateException("a header is an index, not a variable");
        }
    }

    private static ZonedDateTime local(long millis) {
        return Instant.ofEpochMilli(millis).atZone(ZoneId.systemDefault());
    }

    private static void requestUri(StringBuilder line, AccessLogEntry e) {
        if (e.path() == null) {
            line.append('-');
            return;
        }
        escaped(line, e.path());
        if (e.query() != null) {
            // As received: "/echo?" keeps its empty query (no "-" after the "?").
            line.append('?');
            if (!e.query().isEmpty()) {
                escaped(line, e.query());
            }
        }
    }

    /** {@code value} as nginx writes a variable: "-" when absent, and bytes that could break the line escaped. */
    static void escaped(StringBuilder line, String value) {
        if (value == null || value.isEmpty()) {
            line.append('-');
            return;
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
                line.append("\\x").append(Character.forDigit((c >> 4) & 0xf, 16)).append(Character.forDigit(c & 0xf, 16));
            } else {
                line.append(c);
            }
        }
    }

    /** Milliseconds with one decimal, or "-". */
    private static void millis(StringBuilder line, long nanos) {
        if (nanos < 0) {
            line.append('-');
            return;
        }
        long tenths = nanos / 100_000;
        line.append(tenths / 10).append('.').append(tenths % 10);
    }

    /** Seconds with three decimals (nginx's $request_time), or "-". */
    private static void seconds(StringBuilder line, long nanos) {
        if (nanos < 0) {
            line.append('-');
            return;
        }
        long millis = nanos / 1_000_000;
        thousandths(line.append(millis / 1000).append('.'), millis % 1000);
    }

    /** 0..999 as three digits (String.format would follow the default locale's digits). */
    private static void thousandths(StringBuilder line, long value) {
        line.append(value < 100 ? (value < 10 ? "00" : "0") : "").append(value);
    }

    private static String json(AccessLogEntry e) {
        StringWriter out = new StringWriter(320);
        try (JsonGenerator json = JSON_FACTORY.createGenerator(out)) {
            json.writeStartObject();
            json.writeStringField("time", Instant.ofEpochMilli(e.timeMillis()).toString());
            json.writeStringField("remote_addr", e.clientAddress());
            json.writeStringField("request_method", e.method());
            StringBuilder uri = new StringBuilder();
            if (e.path() != null) {
                uri.append(e.path());
                if (e.query() != null) {
                    uri.append('?').append(e.query());
                }
            }
            json.writeStringField("request_uri", e.path() == null ? null : uri.toString());
            json.writeStringField("server_protocol", e.protocol());
            json.writeNumberField("status", e.status());
            json.writeNumberField("request_body_bytes", e.bytesIn());
            json.writeNumberField("body_bytes_sent", e.bytesOut());
            json.writeStringField("upstream_addr", e.upstream());
            jsonMillis(json, "upstream_response_time_ms", e.upstreamNanos());
            jsonMillis(json, "request_time_ms", e.totalNanos());
            json.writeStringField("ssl_protocol", e.tlsProtocol());
            json.writeStringField("request_id", e.requestId());
            json.writeStringField("host", e.host());
            json.writeStringField("scheme", e.scheme());
            json.writeStringField("route", e.route());
            json.writeStringField("trace_id", e.traceId());
            json.writeStringField("span_id", e.spanId());
            json.writeEndObject();
        } catch (IOException impossible) {
            throw new UncheckedIOException(impossible);
        }
        return out.toString();
    }

    private static void jsonMillis(JsonGenerator json, String name, long nanos) throws IOException {
        if (nanos < 0) {
            json.writeNullField(name);
        } else {
            json.writeNumberField(name, (nanos / 100_000) / 10.0);
        }
    }

    public boolean isJson() {
        return json;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof AccessLogFormat f && source.equals(f.source);
    }

    @Override
    public int hashCode() {
        return Objects.hash(source);
    }

    @Override
    public String toString() {
        return source;
    }
}
