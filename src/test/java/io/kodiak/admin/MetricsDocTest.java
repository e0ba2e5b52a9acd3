package io.kodiak.admin;

import io.kodiak.support.TestUpstream;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/operations.md's metrics table against what Kodiak exports, both ways: every kodiak_* series a
 * running Kodiak serves on /metrics (with a group, an h2 group, a route of its own and a listener
 * with the PROXY protocol, so that the series those bring are there) has a row, and every row
 * names a meter Kodiak's code registers.
 */
class MetricsDocTest {
    private static final Path DOC = Path.of("docs", "operations.md");
    /** A row of the metrics table: its first cell is the series in backticks. */
    private static final Pattern ROW = Pattern.compile("^\\| `(kodiak_[a-z0-9_]+)` \\|", Pattern.MULTILINE);
    private static final Pattern TYPE = Pattern.compile("^# TYPE (kodiak_[a-z0-9_]+) ([a-z]+)$", Pattern.MULTILINE);
    /** A meter's name in the code: Micrometer's dotted form, "kodiak.upstream.pool.open". */
    private static final Pattern METER = Pattern.compile("\"(kodiak(?:\\.[a-z0-9]+)+)\"");
    /** What the Prometheus registry appends to a meter's name: its base unit, and _total for counters. */
    private static final List<String> SUFFIXES = List.of("_seconds_total", "_bytes_total", "_total", "_seconds", "_bytes");

    @Test
    void everyExportedSeriesIsDocumented() throws Exception {
        Set<String> documented = documented(Files.readString(DOC, StandardCharsets.UTF_8));
        Set<String> exported;
        try (TestUpstream upstream = TestUpstream.start();
             AdminHarness proxy = AdminHarness.start(config(upstream))) {
            assertEquals(200, proxy.proxyPost("/app/echo", "hello").statusCode());
            exported = exported(proxy.metrics());
        }
        assertTrue(exported.contains("kodiak_upstream_pool_h2"), "the h2 group's series are exported: " + exported);
        List<String> missing = exported.stream().filter(name -> !documented.contains(name)).toList();
        assertTrue(missing.isEmpty(), "/metrics exports series that " + DOC + " (\"Metrics\") does not document: " + missing);
    }

    @Test
    void everyDocumentedSeriesIsAMeter() throws IOException {
        Set<String> meters = meters();
        List<String> stale = documented(Files.readString(DOC, StandardCharsets.UTF_8)).stream()
                .filter(name -> !isMeter(name, meters)).toList();
        assertTrue(stale.isEmpty(), DOC + " documents series no meter in src/main/java registers: " + stale);
    }

    /** The checks themselves: a summary's _max is its own; suffixes come off a documented name. */
    @Test
    void namesSeriesAsPrometheusWritesThem() {
        String scrape = "# TYPE kodiak_a_seconds summary\nkodiak_a_seconds{quantile=\"0.5\"} 0\n"
                + "# TYPE kodiak_a_seconds_max gauge\nkodiak_a_seconds_max 0\n# TYPE kodiak_b_total counter\n"
                + "# TYPE jvm_x gauge\n";
        assertEquals(Set.of("kodiak_a_seconds", "kodiak_b_total"), exported(scrape));
        assertEquals(Set.of("kodiak_c", "kodiak_d_total"), documented("| `kodiak_c` | | x |\n| `kodiak_d_total` | `l` | y |\ntext `kodiak_e`\n"));
        assertTrue(isMeter("kodiak_b_total", Set.of("kodiak_b")));
        assertTrue(isMeter("kodiak_a_seconds", Set.of("kodiak_a")));
        assertTrue(!isMeter("kodiak_gone_total", Set.of("kodiak_b")));
    }

    private static String config(TestUpstream upstream) {
        return "proxy.upstreams { orders { servers = [\"" + upstream.url("") + "\"] }\n"
                + "  grpc { protocol = \"h2\", servers = [\"http://127.0.0.1:9\"] } }\n"
                + "proxy.listeners = [ { port = 0, proxy-protocol = true } ]\n"
                + "proxy.routes = [ { prefix = \"/app\", upstream = \"" + upstream.url("") + "\" }\n"
                + "  { prefix = \"/orders/\", upstream = \"http://orders/\" }\n"
                + "  { prefix = \"/grpc/\", upstream = \"http://grpc/\" } ]\n";
    }

    /** The series the doc's metrics table names (a row's first cell). */
    static Set<String> documented(String doc) {
        Set<String> names = new TreeSet<>();
        Matcher m = ROW.matcher(doc);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    /** Every kodiak_* series in a scrape, by its TYPE line; a summary's _max gauge is counted with its summary. */
    static Set<String> exported(String scrape) {
        Set<String> summaries = new TreeSet<>();
        List<String> names = new ArrayList<>();
        Matcher m = TYPE.matcher(scrape);
        while (m.find()) {
            names.add(m.group(1));
            if (m.group(2).equals("summary")) {
                summaries.add(m.group(1));
            }
        }
        Set<String> series = new TreeSet<>();
        for (String name : names) {
            boolean summaryMax = name.endsWith("_max") && summaries.contains(name.substring(0, name.length() - 4));
            if (!summaryMax) {
                series.add(name);
            }
        }
        return series;
    }

    /** Every meter name in src/main/java, written with underscores: kodiak_upstream_pool_open. */
    private static Set<String> meters() throws IOException {
        Set<String> meters = new TreeSet<>();
        try (Stream<Path> files = Files.walk(Path.of("src", "main", "java"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                Matcher m = METER.matcher(Files.readString(file, StandardCharsets.UTF_8));
                while (m.find()) {
                    meters.add(m.group(1).replace('.', '_'));
                }
            }
        }
        return meters;
    }

    static boolean isMeter(String series, Set<String> meters) {
        if (meters.contains(series)) {
            return true;
        }
        return SUFFIXES.stream().anyMatch(s -> series.endsWith(s) && meters.contains(series.substring(0, series.length() - s.length())));
    }
}
