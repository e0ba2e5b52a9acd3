package io.kodiak.log;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * proxy.access-log.format: nginx-style variables with nginx's escaping and "-" for a missing
 * value, "json", and a default that writes the line Kodiak always wrote.
 */
class AccessLogFormatTest {
    /** 2023-11-14T22:13:20.123Z */
    private static final long TIME = 1_700_000_000_123L;

    /** The sample exchange: POST /echo?a=1 answered 200 by 127.0.0.1:8080, over plain HTTP. */
    private static AccessLogEntry entry() {
        return entry("/echo", "a=1", "127.0.0.1:8080", 1_234_567, 3_456_789, null, null);
    }

    private static AccessLogEntry entry(String path, String query, String upstream, long upstreamNanos, long totalNanos,
                                        String tls, String[] headers) {
        return new AccessLogEntry(TIME, "127.0.0.1", "POST", path, query, "HTTP/1.1", 200, 5, 5, upstream,
                upstreamNanos, totalNanos, tls, "0123456789abcdef0123456789abcdef", "api.example.com", "http",
                "api.example.com/echo", headers, TRACE_ID, SPAN_ID);
    }

    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String SPAN_ID = "00f067aa0ba902b7";

    private static String line(String format, AccessLogEntry entry) throws AccessLogFormat.Invalid {
        return AccessLogFormat.parse(format).line(entry);
    }

    /** AccessLog.record before proxy.access-log.format existed, kept here as the reference. */
    private static String historicalLine(String client, String method, String uri, String query, int status,
                                         long bytesIn, long bytesOut, String upstream, long upstreamNanos,
                                         long totalNanos, String tlsProtocol) {
        StringBuilder line = new StringBuilder().append(client).append(" \"").append(method).append(' ').append(uri);
        if (query != null) {
            line.append('?').append(query);
        }
        line.append("\" ").append(status).append(' ').append(bytesIn).append(' ').append(bytesOut)
                .append(' ').append(upstream == null ? "-" : upstream).append(' ');
        historicalMillis(line, upstreamNanos).append(' ');
        historicalMillis(line, totalNanos).append(' ').append(tlsProtocol == null ? "-" : tlsProtocol);
        return line.toString();
    }

    private static StringBuilder historicalMillis(StringBuilder line, long nanos) {
        if (nanos < 0) {
            return line.append('-');
        }
        long tenths = nanos / 100_000;
        return line.append(tenths / 10).append('.').append(tenths % 10);
    }

    // -------------------------------------------------------------- default

    @Test
    void theDefaultFormatWritesTheHistoricalLine() throws Exception {
        assertEquals("127.0.0.1 \"POST /echo?a=1\" 200 5 5 127.0.0.1:8080 1.2 3.4 -", line(AccessLogFormat.DEFAULT, entry()));
    }

    @Test
    void theDefaultFormatMatchesTheHistoricalLineWhateverIsAbsent() throws Exception {
        // No query, no upstream (a local answer), TLS, long times, times that round down.
        assertEquals(historicalLine("127.0.0.1", "POST", "/echo", null, 200, 5, 5, null, -1, 999_999, "TLSv1.3"),
                line(AccessLogFormat.DEFAULT, entry("/echo", null, null, -1, 999_999, "TLSv1.3", null)));
        assertEquals(historicalLine("127.0.0.1", "POST", "/a/b", "x=1&y=2", 200, 5, 5, "10.0.0.1:80,10.0.0.2:80",
                        12_345_678_901L, 99_999_999_999L, "TLSv1.2"),
                line(AccessLogFormat.DEFAULT, entry("/a/b", "x=1&y=2", "10.0.0.1:80,10.0.0.2:80", 12_345_678_901L,
                        99_999_999_999L, "TLSv1.2", null)));
        assertEquals(historicalLine("127.0.0.1", "POST", "/", null, 200, 5, 5, "h:1", 0, 0, null),
                line(AccessLogFormat.DEFAULT, entry("/", null, "h:1", 0, 0, null, null)));
    }

    @Test
    void anEmptyQueryIsLoggedAsItArrivedInTheDefaultLine() throws Exception {
        // "GET /echo?" has an empty query (RequestHead.query() is ""): the historical line wrote
        // "/echo?" as nginx's $request_uri does, not "/echo?-".
        assertEquals(historicalLine("127.0.0.1", "POST", "/echo", "", 200, 5, 5, "127.0.0.1:8080", 1_234_567,
                        3_456_789, null),
                line(AccessLogFormat.DEFAULT, entry("/echo", "", "127.0.0.1:8080", 1_234_567, 3_456_789, null, null)));
    }

    @Test
    void theDefaultIsWhatReferenceConfShips() throws Exception {
        assertEquals(AccessLogFormat.parse(AccessLogFormat.DEFAULT), AccessLogFormat.parse(
                com.typesafe.config.ConfigFactory.defaultReference().getString("proxy.access-log.format")));
    }

    // ------------------------------------------------------------ variables

    @Test
    void eachVariableWritesItsValue() throws Exception {
        assertEquals("POST /echo?a=1 HTTP/1.1", line("$request", entry()));
        assertEquals("/echo", line("$uri", entry()));
        assertEquals("a=1", line("$args", entry()));
        assertEquals("HTTP/1.1", line("$server_protocol", entry()));
        assertEquals("0123456789abcdef0123456789abcdef", line("$request_id", entry()));
        assertEquals("api.example.com http api.example.com/echo", line("$host $scheme $route", entry()));
        assertEquals("200 5 5", line("$status $request_body_bytes $body_bytes_sent", entry()));
        assertEquals("1700000000.123", line("$msec", entry()));
    }

    @Test
    void theBracedFormSeparatesAVariableFromTheTextAfterIt() throws Exception {
        assertEquals("[200]ms=3.4ms", line("[${status}]ms=${request_time_ms}ms", entry()));
        assertEquals("200", line("${status}", entry()));
    }

    @Test
    void anUnbracedNameRunsToTheFirstCharacterThatCannotBeInAName() throws Exception {
        assertEquals("200-5/5.", line("$status-$request_body_bytes/$body_bytes_sent.", entry()));
    }

    @Test
    void aMissingValueIsADash() throws Exception {
        AccessLogEntry local = entry("/echo", null, null, -1, 3_456_789, null, null);
        assertEquals("- - - - -", line("$args $upstream_addr $upstream_response_time $upstream_response_time_ms $ssl_protocol",
                local));
        AccessLogEntry unread = new AccessLogEntry(TIME, "127.0.0.1", null, null, null, null, 400, 0, 0, null, -1, 100_000,
                null, null, null, "http", null, null, null, null);
        assertEquals("- - - - - - -", line("$request_method $request_uri $uri $server_protocol $host $route $request_id",
                unread));
        assertEquals("- -", line("$trace_id ${span_id}", unread));
    }

    @Test
    void requestTimeIsInSecondsWithThreeDecimals() throws Exception {
        // nginx's $request_time: milliseconds, truncated, padded to three digits.
        assertEquals("1.234", line("$request_time", entry("/", null, null, -1, 1_234_567_890, null, null)));
        assertEquals("0.005", line("$request_time", entry("/", null, null, -1, 5_999_999, null, null)));
        assertEquals("0.050", line("$request_time", entry("/", null, null, -1, 50_000_000, null, null)));
        assertEquals("0.000", line("$request_time", entry("/", null, null, -1, 0, null, null)));
        assertEquals("12.000", line("$request_time", entry("/", null, null, -1, 12_000_000_000L, null, null)));
        assertEquals("0.001 -", line("$upstream_response_time $request_time", entry("/", null, null, 1_000_000, -1, null, null)));
    }

    @Test
    void millisecondsHaveOneDecimal() throws Exception {
        assertEquals("12.3 0.0", line("$request_time_ms $upstream_response_time_ms",
                entry("/", null, "h:1", 99_999, 12_345_678, null, null)));
    }

    // -------------------------------------------------------------- headers

    @Test
    void headerVariablesAreCapturedInTheOrderTheFormatFirstNamesThem() throws Exception {
        AccessLogFormat format = AccessLogFormat.parse("$http_user_agent ${http_x_api_key} $http_user_agent $http_Referer");
        assertTrue(format.logsHeaders());
        // Dashes written as underscores, in lower case; each header captured once.
        assertArrayEquals(new String[] {"user-agent", "x-api-key", "referer"}, format.requestHeaders());
        AccessLogEntry withHeaders = entry("/", null, null, -1, 0, null, new String[] {"curl/8.0", "k1", null});
        assertEquals("curl/8.0 k1 curl/8.0 -", format.line(withHeaders));
    }

    @Test
    void requestHeadersIsACopy() throws Exception {
        AccessLogFormat format = AccessLogFormat.parse("$http_user_agent");
        format.requestHeaders()[0] = "changed";
        assertArrayEquals(new String[] {"user-agent"}, format.requestHeaders());
    }

    @Test
    void aFormatWithoutHeaderVariablesCapturesNone() throws Exception {
        AccessLogFormat format = AccessLogFormat.parse(AccessLogFormat.DEFAULT);
        assertFalse(format.logsHeaders());
        assertEquals(0, format.requestHeaders().length);
        // And an entry without header values (they were never captured) writes "-" for a header.
        assertEquals("-", AccessLogFormat.parse("$http_user_agent").line(entry()));
    }

    // ------------------------------------------------------------- escaping

    @Test
    void quotesBackslashesControlAndNonAsciiBytesAreEscaped() throws Exception {
        // A client's header must neither end the quoted field nor start a new line of the log.
        AccessLogEntry hostile = entry("/", null, null, -1, 0, null,
                new String[] {"a\"b\\c\nd\re\tf\u00e9g\u007fh\u0000"});
        assertEquals("\"a\\x22b\\x5cc\\x0ad\\x0de\\x09f\\xe9g\\x7fh\\x00\"", line("\"$http_user_agent\"", hostile));
    }

    @Test
    void escapingAppliesToEveryStringVariable() throws Exception {
        AccessLogEntry entry = entry("/a\"b", "q=\"1\"", null, -1, 0, null, null);
        assertEquals("/a\\x22b?q=\\x221\\x22", line("$request_uri", entry));
    }

    @Test
    void literalTextIsWrittenAsGiven() throws Exception {
        assertEquals("status=200 \"quoted\" \\ tab\there", line("status=$status \"quoted\" \\ tab\there", entry()));
    }

    // ------------------------------------------------------------- refusals

    @Test
    void anUnknownVariableIsRefusedByName() {
        AccessLogFormat.Invalid e = assertThrows(AccessLogFormat.Invalid.class, () -> AccessLogFormat.parse("$status $nope"));
        assertTrue(e.getMessage().contains("$nope"), e.getMessage());
        AccessLogFormat.Invalid braced = assertThrows(AccessLogFormat.Invalid.class, () -> AccessLogFormat.parse("${nope}x"));
        assertTrue(braced.getMessage().contains("$nope"), braced.getMessage());
    }

    @Test
    void variableNamesAreCaseSensitiveAsNginxs() {
        assertThrows(AccessLogFormat.Invalid.class, () -> AccessLogFormat.parse("$STATUS"));
    }

    @Test
    void anUnclosedBraceIsRefused() {
        assertThrows(AccessLogFormat.Invalid.class, () -> AccessLogFormat.parse("${status"));
        assertThrows(AccessLogFormat.Invalid.class, () -> AccessLogFormat.parse("${status x}"));
    }

    @Test
    void aBareHttpPrefixIsNoHeader() {
        assertThrows(AccessLogFormat.Invalid.class, () -> AccessLogFormat.parse("$http_"));
    }

    @Test
    void anEmptyFormatOrOneSpanningLinesIsRefused() {
        for (String format : List.of("", "   ", "$status\n$uri", "a\rb", "a\u0000b")) {
            assertThrows(AccessLogFormat.Invalid.class, () -> AccessLogFormat.parse(format), format);
        }
    }

    @Test
    void formatsAreEqualByTheirText() throws Exception {
        // A reload keeps the format in use when it did not change.
        assertEquals(AccessLogFormat.parse("$status"), AccessLogFormat.parse("$status"));
        assertFalse(AccessLogFormat.parse("$status").equals(AccessLogFormat.parse("${status}")));
    }

    @Test
    void usesTellsWhichValuesTheLinesNeed() throws Exception {
        AccessLogFormat format = AccessLogFormat.parse("$status $request_id");
        assertTrue(format.uses(AccessLogFormat.Variable.REQUEST_ID));
        assertFalse(format.uses(AccessLogFormat.Variable.HOST));
        assertFalse(AccessLogFormat.parse(AccessLogFormat.DEFAULT).uses(AccessLogFormat.Variable.REQUEST_ID));
        assertTrue(AccessLogFormat.parse("json").uses(AccessLogFormat.Variable.REQUEST_ID));
    }

    // ----------------------------------------------------------------- json

    @Test
    void jsonIsOneObjectPerLineWithTheCommonFields() throws Exception {
        AccessLogFormat format = AccessLogFormat.parse("json");
        assertTrue(format.isJson());
        String line = format.line(entry());
        assertFalse(line.contains("\n"), line);
        JsonNode json = new ObjectMapper().readTree(line);
        assertEquals("2023-11-14T22:13:20.123Z", json.get("time").asText());
        assertEquals("127.0.0.1", json.get("remote_addr").asText());
        assertEquals("POST", json.get("request_method").asText());
        assertEquals("/echo?a=1", json.get("request_uri").asText());
        assertEquals("HTTP/1.1", json.get("server_protocol").asText());
        assertEquals(200, json.get("status").asInt());
        assertTrue(json.get("status").isInt());
        assertEquals(5, json.get("request_body_bytes").asLong());
        assertEquals(5, json.get("body_bytes_sent").asLong());
        assertEquals("127.0.0.1:8080", json.get("upstream_addr").asText());
        assertEquals(1.2, json.get("upstream_response_time_ms").asDouble());
        assertEquals(3.4, json.get("request_time_ms").asDouble());
        assertTrue(json.get("ssl_protocol").isNull());
        assertEquals("0123456789abcdef0123456789abcdef", json.get("request_id").asText());
        assertEquals("api.example.com", json.get("host").asText());
        assertEquals("http", json.get("scheme").asText());
        assertEquals("api.example.com/echo", json.get("route").asText());
        assertEquals(TRACE_ID, json.get("trace_id").asText());
        assertEquals(SPAN_ID, json.get("span_id").asText());
    }

    @Test
    void traceAndSpanIdsAreWrittenAsTheyAre() throws Exception {
        assertEquals("trace=" + TRACE_ID + " span=" + SPAN_ID, line("trace=$trace_id span=${span_id}", entry()));
        assertTrue(AccessLogFormat.parse("$trace_id").uses(AccessLogFormat.Variable.TRACE_ID));
        assertFalse(AccessLogFormat.parse("$trace_id").uses(AccessLogFormat.Variable.SPAN_ID));
    }

    @Test
    void jsonWritesNullForAnAbsentUpstreamTime() throws Exception {
        JsonNode json = new ObjectMapper().readTree(AccessLogFormat.parse("json")
                .line(entry("/echo", null, null, -1, 3_456_789, "TLSv1.3", null)));
        assertTrue(json.get("upstream_response_time_ms").isNull());
        assertTrue(json.get("upstream_addr").isNull());
        assertEquals("/echo", json.get("request_uri").asText());
        assertEquals("TLSv1.3", json.get("ssl_protocol").asText());
    }

    @Test
    void jsonEscapesWhatAClientSentAndReadsBackTheSame() throws Exception {
        String path = "/a\"b\\c";
        JsonNode json = new ObjectMapper().readTree(AccessLogFormat.parse("json")
                .line(entry(path, "x=\u0001", "h:1", 0, 0, null, null)));
        assertEquals(path + "?x=\u0001", json.get("request_uri").asText());
    }
}
