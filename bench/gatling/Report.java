// Benchmark report generator, run with the JDK's source launcher (no build, no dependencies):
//
//   java bench/gatling/Report.java collect --manifest runs.tsv --out results.json [--param key=value ...]
//   java bench/gatling/Report.java render  --results results.json --out-dir DIR [--reference ref.json]
//                                          [--title T] [--meta key=value ...] [--ceiling N] [--delay-ms N]
//   java bench/gatling/Report.java verdict --results results.json
//
// `collect` turns Gatling 3.12 result folders into results.json rows; `render` turns any results.json
// (one object per row: target, label, scenario, requests, ok, ko, rps, p50_ms, p95_ms, p99_ms, mean_ms,
// max_ms, optional report link and error) into report.md and a self-contained report.html with inline
// SVG charts, and prints the table; `verdict` exits 1 when any row failed a request or produced no data.
// `render` and `verdict` know nothing about Gatling, so other benchmarks can write the same rows.

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

public class Report {
    public static void main(String[] args) throws IOException {
        if (args.length == 0) {
            usage("missing command");
        }
        Options options = Options.parse(args);
        switch (args[0]) {
            case "collect" -> Collect.run(options);
            case "render" -> Render.run(options);
            case "verdict" -> System.exit(Verdict.run(options));
            default -> usage("unknown command " + args[0]);
        }
    }

    static void usage(String problem) {
        System.err.println("Report: " + problem);
        System.err.println("usage: java Report.java collect --manifest runs.tsv --out results.json [--param k=v ...]");
        System.err.println("       java Report.java render --results results.json --out-dir DIR [--reference ref.json]"
                + " [--title T] [--meta k=v ...] [--ceiling N] [--delay-ms N]");
        System.err.println("       java Report.java verdict --results results.json");
        System.exit(2);
    }
}

/** `--name value` pairs after the command; `--param` and `--meta` may repeat and keep their order. */
final class Options {
    private final Map<String, String> single = new LinkedHashMap<>();
    private final Map<String, Map<String, String>> repeated = new LinkedHashMap<>();

    static Options parse(String[] args) {
        Options options = new Options();
        for (int i = 1; i < args.length; i += 2) {
            String name = args[i];
            if (!name.startsWith("--") || i + 1 >= args.length) {
                Report.usage("expected --option value, got " + name);
            }
            String value = args[i + 1];
            if (name.equals("--param") || name.equals("--meta")) {
                int eq = value.indexOf('=');
                if (eq <= 0) {
                    Report.usage(name + " expects key=value, got " + value);
                }
                options.repeated.computeIfAbsent(name.substring(2), k -> new LinkedHashMap<>())
                        .put(value.substring(0, eq), value.substring(eq + 1));
            } else {
                options.single.put(name.substring(2), value);
            }
        }
        return options;
    }

    String required(String name) {
        String value = single.get(name);
        if (value == null) {
            Report.usage("missing --" + name);
        }
        return value;
    }

    String optional(String name) {
        return single.get(name);
    }

    Map<String, String> pairs(String name) {
        return repeated.getOrDefault(name, Map.of());
    }
}

/** Reads the manifest bench.sh wrote (one run per line) and the Gatling folder each run left. */
final class Collect {
    static void run(Options options) throws IOException {
        Path manifest = Path.of(options.required("manifest"));
        Path out = Path.of(options.required("out"));
        Path outDir = out.toAbsolutePath().getParent();
        List<Map<String, Object>> rows = new ArrayList<>();
        for (String line : Files.readAllLines(manifest, StandardCharsets.UTF_8)) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            rows.add(ManifestLine.parse(line).toRow(manifest.toAbsolutePath().getParent(), outDir, options.pairs("param")));
        }
        Files.writeString(out, Json.write(rows) + "\n", StandardCharsets.UTF_8);
    }
}

/**
 * target TAB label TAB exit-code TAB results-folder (relative to the manifest) [TAB note]; the note says
 * why a run left no results when bench.sh knows better than the exit code (e.g. the target did not start).
 */
record ManifestLine(String target, String label, int exitCode, String resultsFolder, String note) {
    static ManifestLine parse(String line) {
        String[] cells = line.split("\t", -1);
        if (cells.length < 4 || cells.length > 5) {
            throw new IllegalArgumentException("manifest line needs 4 or 5 tab-separated cells: " + line);
        }
        String note = cells.length == 5 && !cells[4].isBlank() ? cells[4] : null;
        return new ManifestLine(cells[0], cells[1], Integer.parseInt(cells[2].trim()), cells[3], note);
    }

    Map<String, Object> toRow(Path manifestDir, Path outDir, Map<String, String> params) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("target", target);
        row.put("label", label);
        params.forEach(row::put);
        row.put("exit_code", exitCode);
        GatlingRun.find(manifestDir.resolve(resultsFolder)).ifPresentOrElse(
                run -> run.addTo(row, outDir),
                () -> row.put("error", note != null ? note
                        : "no Gatling results (run exited " + exitCode + "; see logs/gatling-" + target + ".log)"));
        return row;
    }
}

/** One Gatling 3.12 result folder: js/global_stats.json for the numbers, index.html for the error table. */
final class GatlingRun {
    private static final Pattern ERROR_CELL = Pattern.compile(
            "<td class=\"error-col-1 total ko\">(.*?)<span[^>]*>[^<]*</span></td>\\s*<td class=\"value error-col-2 total ko\">(\\d+)</td>",
            Pattern.DOTALL);

    private final Path dir;

    private GatlingRun(Path dir) {
        this.dir = dir;
    }

    /** Gatling names the run folder itself (simulation + timestamp); bench.sh gives each target its own parent. */
    static java.util.Optional<GatlingRun> find(Path resultsFolder) {
        if (!Files.isDirectory(resultsFolder)) {
            return java.util.Optional.empty();
        }
        try (Stream<Path> children = Files.list(resultsFolder)) {
            return children.filter(p -> Files.isRegularFile(p.resolve("js/global_stats.json")))
                    .max(Path::compareTo)
                    .map(GatlingRun::new);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void addTo(Map<String, Object> row, Path outDir) {
        Map<String, Object> stats = Json.asObject(Json.parse(read(dir.resolve("js/global_stats.json"))));
        long ok = total(stats, "numberOfRequests", "ok").longValue();
        long ko = total(stats, "numberOfRequests", "ko").longValue();
        row.put("requests", ok + ko);
        row.put("ok", ok);
        row.put("ko", ko);
        row.put("rps", Math.round(total(stats, "meanNumberOfRequestsPerSecond", "total").doubleValue() * 10) / 10.0);
        // Gatling's percentiles1..4 are p50, p75, p95, p99 with its default configuration.
        row.put("p50_ms", total(stats, "percentiles1", "total").longValue());
        row.put("p75_ms", total(stats, "percentiles2", "total").longValue());
        row.put("p95_ms", total(stats, "percentiles3", "total").longValue());
        row.put("p99_ms", total(stats, "percentiles4", "total").longValue());
        row.put("mean_ms", total(stats, "meanResponseTime", "total").longValue());
        row.put("min_ms", total(stats, "minResponseTime", "total").longValue());
        row.put("max_ms", total(stats, "maxResponseTime", "total").longValue());
        topError().ifPresent(e -> row.put("top_error", e));
        row.put("report", outDir.relativize(dir.toAbsolutePath().resolve("index.html")).toString());
    }

    private java.util.Optional<String> topError() {
        Path index = dir.resolve("index.html");
        if (!Files.isRegularFile(index)) {
            return java.util.Optional.empty();
        }
        Matcher m = ERROR_CELL.matcher(read(index));
        if (!m.find()) {
            return java.util.Optional.empty();
        }
        String message = Html.unescape(m.group(1).trim().replaceAll("\\s+", " "));
        return java.util.Optional.of(message + " (" + m.group(2) + "×)");
    }

    private static Number total(Map<String, Object> stats, String key, String which) {
        Object value = Json.asObject(stats.get(key)).get(which);
        if (!(value instanceof Number n)) {
            throw new IllegalStateException("global_stats.json: " + key + "." + which + " is not a number: " + value);
        }
        return n;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

/** Typed, tolerant access to a results.json row (rows from other benchmarks may lack fields). */
record Row(Map<String, Object> fields) {
    static List<Row> load(Path file) throws IOException {
        List<Row> rows = new ArrayList<>();
        for (Object o : Json.asArray(Json.parse(Files.readString(file, StandardCharsets.UTF_8)))) {
            rows.add(new Row(Json.asObject(o)));
        }
        return rows;
    }

    String text(String key) {
        Object v = fields.get(key);
        return v == null ? null : v.toString();
    }

    Double number(String key) {
        return fields.get(key) instanceof Number n ? n.doubleValue() : null;
    }

    String target() {
        return text("target");
    }

    String label() {
        String label = text("label");
        return label == null ? target() : label;
    }

    boolean hasData() {
        return number("requests") != null && text("error") == null;
    }

    /** Why this row counts as a failure, or null. */
    String failure() {
        if (!hasData()) {
            return text("error") == null ? "no data" : text("error");
        }
        if (number("requests") == 0) {
            return "no requests were made";
        }
        Double ko = number("ko");
        if (ko != null && ko > 0) {
            String top = text("top_error");
            return Fmt.count(ko) + " failed requests" + (top == null ? "" : ": " + top);
        }
        return null;
    }
}

/** The 2015 published rows, keyed by the target they correspond to today. */
record Reference(List<Row> rows) {
    static final Reference NONE = new Reference(List.of());

    static Reference load(String file) throws IOException {
        return new Reference(file == null ? List.of() : Row.load(Path.of(file)));
    }

    Row forTarget(String target) {
        return rows.stream().filter(r -> target.equals(r.target())).findFirst().orElse(null);
    }
}

final class Render {
    static void run(Options options) throws IOException {
        List<Row> rows = Row.load(Path.of(options.required("results")));
        Reference reference = Reference.load(options.optional("reference"));
        // The 2015 figures sit beside today's only when the scenario is the same (the original profile);
        // otherwise they are shown apart, as history.
        boolean beside = !"no".equals(options.optional("reference-beside"));
        Path outDir = Path.of(options.required("out-dir"));
        Files.createDirectories(outDir);
        String title = options.optional("title") == null ? "Benchmark report" : options.optional("title");
        Map<String, String> meta = options.pairs("meta");
        Double ceiling = parseOptional(options.optional("ceiling"));
        Double delay = parseOptional(options.optional("delay-ms"));
        ResultTable table = new ResultTable(rows, beside ? reference : Reference.NONE);
        Files.writeString(outDir.resolve("report.md"),
                new MarkdownReport(title, meta, table, reference).render(), StandardCharsets.UTF_8);
        Files.writeString(outDir.resolve("report.html"),
                new HtmlReport(title, meta, table, reference, ceiling, delay).render(), StandardCharsets.UTF_8);
        System.out.print(table.console());
    }

    private static Double parseOptional(String value) {
        return value == null || value.isBlank() ? null : Double.valueOf(value);
    }
}

final class Verdict {
    static int run(Options options) throws IOException {
        List<Row> rows = Row.load(Path.of(options.required("results")));
        int failures = 0;
        for (Row row : rows) {
            String failure = row.failure();
            if (failure != null) {
                failures++;
                System.out.println("FAIL " + row.target() + ": " + failure);
            }
        }
        if (rows.isEmpty()) {
            System.out.println("FAIL no rows in results");
            return 1;
        }
        System.out.println(failures == 0 ? "OK: every request of every target succeeded (" + rows.size() + " rows)"
                : failures + " of " + rows.size() + " rows failed");
        return failures == 0 ? 0 : 1;
    }
}

/** The one table every output shows: today's rows with the 2015 figures beside them. */
final class ResultTable {
    private static final List<String> HEADERS = List.of("target", "requests", "OK", "KO", "req/s", "p50 ms", "p95 ms",
            "p99 ms", "mean ms", "max ms");
    private static final List<String> REFERENCE_HEADERS = List.of("2015 req/s", "2015 failed");

    final List<Row> rows;
    final Reference reference;

    ResultTable(List<Row> rows, Reference reference) {
        this.rows = rows;
        this.reference = reference;
    }

    boolean withReference() {
        return !reference.rows().isEmpty();
    }

    List<String> headers() {
        List<String> headers = new ArrayList<>(HEADERS);
        if (withReference()) {
            headers.addAll(REFERENCE_HEADERS);
        }
        return headers;
    }

    /** The trailing cells that hold 2015 figures rather than today's. */
    int referenceColumns() {
        return withReference() ? REFERENCE_HEADERS.size() : 0;
    }

    List<String> cells(Row row) {
        Row ref = reference.forTarget(row.target());
        List<String> cells = new ArrayList<>();
        cells.add(row.label());
        if (row.hasData()) {
            cells.add(Fmt.count(row.number("requests")));
            cells.add(Fmt.count(row.number("ok")));
            cells.add(Fmt.count(row.number("ko")));
            cells.add(Fmt.rate(row.number("rps")));
            for (String key : List.of("p50_ms", "p95_ms", "p99_ms", "mean_ms", "max_ms")) {
                cells.add(Fmt.count(row.number(key)));
            }
        } else {
            cells.add("no data");
            for (int i = 2; i < 10; i++) {
                cells.add("—");
            }
        }
        if (withReference()) {
            cells.add(ref == null ? "" : "~" + Fmt.compact(ref.number("rps")));
            cells.add(ref == null ? "" : ref.text("failed_text") != null ? ref.text("failed_text") : Fmt.count(ref.number("ko")));
        }
        return cells;
    }

    String console() {
        List<List<String>> lines = new ArrayList<>();
        lines.add(headers());
        rows.forEach(r -> lines.add(cells(r)));
        int[] widths = new int[headers().size()];
        for (List<String> line : lines) {
            for (int i = 0; i < widths.length; i++) {
                widths[i] = Math.max(widths[i], line.get(i).length());
            }
        }
        StringBuilder out = new StringBuilder();
        for (List<String> line : lines) {
            for (int i = 0; i < widths.length; i++) {
                String cell = line.get(i);
                out.append(i == 0 ? String.format("%-" + widths[i] + "s", cell) : String.format("  %" + widths[i] + "s", cell));
            }
            out.append('\n');
        }
        for (Row row : rows) {
            String failure = row.failure();
            if (failure != null) {
                out.append("  ! ").append(row.target()).append(": ").append(failure).append('\n');
            }
        }
        return out.toString();
    }
}

final class MarkdownReport {
    private final String title;
    private final Map<String, String> meta;
    private final ResultTable table;
    private final Reference reference;

    MarkdownReport(String title, Map<String, String> meta, ResultTable table, Reference reference) {
        this.title = title;
        this.meta = meta;
        this.table = table;
        this.reference = reference;
    }

    String render() {
        StringBuilder md = new StringBuilder("# ").append(title).append("\n\n");
        meta.forEach((k, v) -> md.append("- **").append(k).append(":** ").append(v).append('\n'));
        md.append("\n## Results\n\n");
        md.append(row(table.headers())).append(row(separator(table.headers().size())));
        for (Row r : table.rows) {
            md.append(row(table.cells(r)));
        }
        md.append("\nResponse times in ms over all requests (failed ones included), as Gatling reports them.");
        md.append(table.withReference() ? " The 2015 columns are the published figures from other hardware, for reference only.\n" : "\n");
        List<Row> failed = table.rows.stream().filter(r -> r.failure() != null).toList();
        if (!failed.isEmpty()) {
            md.append("\n**Failures:**\n\n");
            failed.forEach(r -> md.append("- ").append(r.label()).append(": ").append(escape(r.failure())).append('\n'));
        }
        List<Row> linked = table.rows.stream().filter(r -> r.text("report") != null).toList();
        if (!linked.isEmpty()) {
            md.append("\n**Gatling reports:** ");
            md.append(String.join(" · ", linked.stream()
                    .map(r -> "[" + r.label() + "](" + r.text("report") + ")").toList()));
            md.append('\n');
        }
        if (!reference.rows().isEmpty()) {
            md.append("\n## Reference: published 2015 results (other hardware — not comparable in absolute terms)\n\n");
            md.append("One laptop, Gatling 2.1.2, JDK 7, Mule 3.6 CE, stub in Tomcat 8. Only the ranking and the ratio "
                    + "to the stub-direct row carry over to this machine.\n\n");
            md.append(row(List.of("2015 target", "requests", "failed", "req/s", "response time")));
            md.append(row(List.of("---", "---:", "---", "---:", "---")));
            for (Row r : reference.rows()) {
                md.append(row(List.of(r.label(), r.number("requests") == null ? "—" : Fmt.count(r.number("requests")),
                        r.text("failed_text") != null ? r.text("failed_text") : Fmt.count(r.number("ko")),
                        "~" + Fmt.compact(r.number("rps")), r.text("latency") == null ? "" : r.text("latency"))));
            }
        }
        return md.toString();
    }

    private static List<String> separator(int columns) {
        List<String> cells = new ArrayList<>();
        cells.add("---");
        for (int i = 1; i < columns; i++) {
            cells.add("---:");
        }
        return cells;
    }

    private static String row(List<String> cells) {
        return "| " + String.join(" | ", cells.stream().map(MarkdownReport::escape).toList()) + " |\n";
    }

    private static String escape(String s) {
        return s.replace("|", "\\|");
    }
}

final class HtmlReport {
    private static final String OK = "#2f7d32";
    private static final String KO = "#c62828";
    private static final String TODAY = "#1565c0";
    private static final String THEN = "#b0b7bf";

    private final String title;
    private final Map<String, String> meta;
    private final ResultTable table;
    private final Reference reference;
    private final Double ceiling;
    private final Double delayMs;

    HtmlReport(String title, Map<String, String> meta, ResultTable table, Reference reference, Double ceiling, Double delayMs) {
        this.title = title;
        this.meta = meta;
        this.table = table;
        this.reference = reference;
        this.ceiling = ceiling;
        this.delayMs = delayMs;
    }

    String render() {
        StringBuilder h = new StringBuilder();
        h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>")
                .append(Html.escape(title)).append("</title>\n<style>\n")
                .append("body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,Arial,sans-serif;margin:24px;color:#222;max-width:1100px}\n")
                .append("table{border-collapse:collapse;margin:8px 0 16px;font-size:13px}th,td{border:1px solid #ccc;padding:3px 6px}")
                .append("td:first-child{white-space:nowrap}td.why{min-width:200px;max-width:300px;overflow-wrap:anywhere}")
                .append("td.n{text-align:right;font-variant-numeric:tabular-nums}th{background:#f2f4f7}\n")
                .append("tr.fail td{background:#fdecea}.ref{color:#666}.meta li{margin:2px 0}h2{margin-top:28px}\n")
                .append("svg text{font-family:inherit}\n</style></head><body>\n");
        h.append("<h1>").append(Html.escape(title)).append("</h1>\n<ul class=\"meta\">\n");
        meta.forEach((k, v) -> h.append("<li><b>").append(Html.escape(k)).append(":</b> ").append(Html.escape(v)).append("</li>\n"));
        h.append("</ul>\n");
        h.append("<h2>Throughput</h2>\n").append(throughputChart());
        h.append("<h2>Response time percentiles</h2>\n").append(latencyChart());
        h.append("<h2>Failed requests</h2>\n").append(failureChart());
        h.append("<h2>Table</h2>\n").append(htmlTable());
        h.append(referenceTable());
        h.append("</body></html>\n");
        return h.toString();
    }

    private String throughputChart() {
        BarChart chart = new BarChart("req/s", Fmt::rate).series("today", TODAY);
        if (table.withReference()) {
            chart.series("2015 published (other hardware)", THEN);
        }
        for (Row r : table.rows) {
            Row ref = table.reference.forTarget(r.target());
            chart.group(r.label(), r.hasData() ? r.number("rps") : null, ref == null ? null : ref.number("rps"));
        }
        if (ceiling != null) {
            chart.marker(ceiling, "scenario ceiling ≈ " + Fmt.rate(ceiling) + " req/s");
        }
        return chart.svg();
    }

    private String latencyChart() {
        BarChart chart = new BarChart("ms", Fmt::count)
                .series("p50", "#90caf9")
                .series("p95", "#1e88e5")
                .series("p99", "#0d47a1")
                .logScaleWhenWide();
        for (Row r : table.rows) {
            chart.group(r.label(), r.number("p50_ms"), r.number("p95_ms"), r.number("p99_ms"));
        }
        if (delayMs != null) {
            chart.marker(delayMs, "stub delay " + Fmt.count(delayMs) + " ms");
        }
        return chart.svg();
    }

    private String failureChart() {
        BarChart chart = new BarChart("failed requests", Fmt::count).series("KO", KO).zeroLabel("0 failed", OK)
                .minimumScale(5);
        for (Row r : table.rows) {
            chart.group(r.label(), r.hasData() ? r.number("ko") : null);
        }
        return chart.svg();
    }

    private String htmlTable() {
        StringBuilder t = new StringBuilder("<table><tr>");
        for (String header : table.headers()) {
            t.append("<th>").append(Html.escape(header)).append("</th>");
        }
        t.append("<th>Gatling report</th><th>failure</th></tr>\n");
        for (Row r : table.rows) {
            String failure = r.failure();
            t.append(failure == null ? "<tr>" : "<tr class=\"fail\">");
            List<String> cells = table.cells(r);
            for (int i = 0; i < cells.size(); i++) {
                t.append(i == 0 ? "<td>" : i >= cells.size() - table.referenceColumns() ? "<td class=\"n ref\">" : "<td class=\"n\">")
                        .append(Html.escape(cells.get(i))).append("</td>");
            }
            String link = r.text("report");
            t.append("<td>").append(link == null ? "" : "<a href=\"" + Html.escape(link) + "\">report</a>").append("</td>");
            t.append("<td class=\"why\">").append(failure == null ? "" : Html.escape(failure)).append("</td></tr>\n");
        }
        return t.append("</table>\n<p>Response times in ms over all requests (failed ones included), as Gatling reports them.")
                .append(table.withReference() ? " The 2015 columns are the published figures from other hardware, for reference only." : "")
                .append("</p>\n").toString();
    }

    private String referenceTable() {
        if (reference.rows().isEmpty()) {
            return "";
        }
        StringBuilder t = new StringBuilder("<h2>Reference: published 2015 results</h2>\n")
                .append("<p class=\"ref\">Other hardware (one laptop, Gatling 2.1.2, JDK 7, Mule 3.6 CE, stub in Tomcat 8): "
                        + "not comparable in absolute terms; only the ranking and the ratio to the stub-direct row carry over.</p>\n")
                .append("<table class=\"ref\"><tr><th>2015 target</th><th>requests</th><th>failed</th><th>req/s</th><th>response time</th></tr>\n");
        for (Row r : reference.rows()) {
            t.append("<tr><td>").append(Html.escape(r.label())).append("</td><td class=\"n\">")
                    .append(r.number("requests") == null ? "—" : Fmt.count(r.number("requests"))).append("</td><td>")
                    .append(Html.escape(r.text("failed_text") != null ? r.text("failed_text") : Fmt.count(r.number("ko"))))
                    .append("</td><td class=\"n\">~").append(Fmt.compact(r.number("rps"))).append("</td><td>")
                    .append(Html.escape(r.text("latency") == null ? "" : r.text("latency"))).append("</td></tr>\n");
        }
        return t.append("</table>\n").toString();
    }
}

/**
 * A horizontal grouped bar chart as inline SVG: one group per target, one bar per series, values printed
 * at the bar ends so the chart reads without hovering, optional vertical markers. A missing value is
 * drawn as "no data" so a target whose run failed cannot vanish from a chart.
 */
final class BarChart {
    private static final int WIDTH = 960;
    private static final int LABEL_WIDTH = 260;
    private static final int VALUE_ROOM = 90;
    private static final int BAR = 16;
    private static final int GAP = 12;
    private static final int TOP = 34;

    private record Series(String name, String color) {}

    private record Group(String label, Double[] values) {}

    private record Marker(double value, String label) {}

    private final String unit;
    private final java.util.function.Function<Double, String> format;
    private final List<Series> series = new ArrayList<>();
    private final List<Group> groups = new ArrayList<>();
    private final List<Marker> markers = new ArrayList<>();
    private String zeroLabel;
    private String zeroColor;
    private double minimumScale;
    private boolean logAllowed;

    BarChart(String unit, java.util.function.Function<Double, String> format) {
        this.unit = unit;
        this.format = format;
    }

    BarChart series(String name, String color) {
        series.add(new Series(name, color));
        return this;
    }

    BarChart group(String label, Double... values) {
        groups.add(new Group(label, values));
        return this;
    }

    BarChart marker(double value, String label) {
        markers.add(new Marker(value, label));
        return this;
    }

    /** The axis reaches at least this far, so that counts of 0 or 1 still get whole-number ticks. */
    BarChart minimumScale(double value) {
        this.minimumScale = value;
        return this;
    }

    /** Lets the chart switch to a logarithmic axis when its values span more than 20x. */
    BarChart logScaleWhenWide() {
        this.logAllowed = true;
        return this;
    }

    /** Text drawn instead of an invisible zero-length bar. */
    BarChart zeroLabel(String label, String color) {
        this.zeroLabel = label;
        this.zeroColor = color;
        return this;
    }

    String svg() {
        Scale scale = scale();
        int plotWidth = WIDTH - LABEL_WIDTH - VALUE_ROOM;
        int groupHeight = series.size() * BAR + GAP;
        int plotBottom = TOP + groups.size() * groupHeight;
        int height = plotBottom + (markers.isEmpty() ? 24 : 40);
        StringBuilder s = new StringBuilder();
        s.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(WIDTH).append("\" height=\"").append(height)
                .append("\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(height).append("\" role=\"img\">\n");
        legend(s, scale.isLog() ? unit + " (log scale)" : unit);
        for (double tick : scale.ticks()) {
            double x = LABEL_WIDTH + scale.position(tick) * plotWidth;
            s.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e3e3e3\"/>\n",
                    x, TOP - 6, x, plotBottom));
            s.append(text(x, plotBottom + 14, "middle", "#888", Fmt.compact(tick)));
        }
        int y = TOP;
        for (Group g : groups) {
            s.append(text(LABEL_WIDTH - 8, y + series.size() * BAR / 2.0 + 4, "end", "#222", g.label));
            for (int i = 0; i < series.size(); i++) {
                Double v = i < g.values.length ? g.values[i] : null;
                int barY = y + i * BAR;
                if (v == null) {
                    if (i == 0) {
                        s.append(text(LABEL_WIDTH + 4, barY + BAR - 4, "start", "#c62828", "no data"));
                    }
                } else if (v == 0 && zeroLabel != null) {
                    s.append(text(LABEL_WIDTH + 4, barY + BAR - 4, "start", zeroColor, zeroLabel));
                } else {
                    double w = scale.position(v) * plotWidth;
                    s.append(String.format(Locale.ROOT,
                            "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>%s: %s %s</title></rect>\n",
                            LABEL_WIDTH, barY + 1, Math.max(w, 1.0), BAR - 2, series.get(i).color,
                            Html.escape(series.get(i).name), format.apply(v), Html.escape(unit)));
                    s.append(text(LABEL_WIDTH + Math.max(w, 1.0) + 4, barY + BAR - 4, "start", "#333", format.apply(v)));
                }
            }
            y += groupHeight;
        }
        for (Marker m : markers) {
            double x = LABEL_WIDTH + scale.position(m.value) * plotWidth;
            s.append(String.format(Locale.ROOT,
                    "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e65100\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n",
                    x, TOP - 6, x, plotBottom));
            s.append(text(x, plotBottom + 32, "middle", "#e65100", m.label));
        }
        return s.append("</svg>\n").toString();
    }

    /**
     * Linear from zero, unless logarithmic was allowed and the values span more than 20x: then a 500 ms
     * proxy and a 60 s timeout share one chart without the fast ones collapsing into the same sliver.
     */
    private Scale scale() {
        double max = minimumScale;
        double minPositive = Double.MAX_VALUE;
        List<Double> all = new ArrayList<>();
        groups.forEach(g -> all.addAll(java.util.Arrays.asList(g.values)));
        markers.forEach(m -> all.add(m.value));
        for (Double v : all) {
            if (v != null) {
                max = Math.max(max, v);
                if (v > 0) {
                    minPositive = Math.min(minPositive, v);
                }
            }
        }
        if (logAllowed && minPositive != Double.MAX_VALUE && max / minPositive > 20) {
            return Scale.log(minPositive, max);
        }
        return Scale.linear(max);
    }

    private void legend(StringBuilder s, String unitLabel) {
        int x = LABEL_WIDTH;
        for (Series se : series) {
            s.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"6\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", x, se.color));
            s.append(text(x + 16, 16, "start", "#333", se.name));
            x += 24 + se.name.length() * 7;
        }
        s.append(text(WIDTH - 4, 16, "end", "#666", unitLabel));
    }

    private static String text(double x, double y, String anchor, String color, String content) {
        return String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" fill=\"%s\" font-size=\"12\">%s</text>\n",
                x, y, anchor, color, Html.escape(content));
    }
}

/** Maps a value to 0..1 of the plot's width, with round tick values. */
interface Scale {
    double position(double value);

    List<Double> ticks();

    boolean isLog();

    /** From 0 to a round ceiling (a step times a power of ten), split so that every tick is round. */
    static Scale linear(double max) {
        double magnitude = max <= 0 ? 1 : Math.pow(10, Math.floor(Math.log10(max)));
        double[][] steps = {{1, 5}, {1.5, 3}, {2, 4}, {2.5, 5}, {3, 3}, {4, 4}, {5, 5}, {6, 6}, {8, 4}, {10, 5}};
        double top = 10 * magnitude;
        int divisions = 5;
        for (double[] step : steps) {
            if (step[0] * magnitude >= max) {
                top = step[0] * magnitude;
                divisions = (int) step[1];
                break;
            }
        }
        double ceiling = top;
        List<Double> ticks = new ArrayList<>();
        for (int i = 0; i <= divisions; i++) {
            ticks.add(ceiling * i / divisions);
        }
        return new Scale() {
            public double position(double value) {
                return Math.max(0, value) / ceiling;
            }

            public List<Double> ticks() {
                return ticks;
            }

            public boolean isLog() {
                return false;
            }
        };
    }

    /** Decades from the power of ten below the smallest value to the 1-2-5 step above the largest. */
    static Scale log(double minPositive, double max) {
        double low = Math.pow(10, Math.floor(Math.log10(minPositive)));
        List<Double> ticks = new ArrayList<>();
        double high = low;
        outer:
        for (double decade = low; ; decade *= 10) {
            for (double step : new double[] {1, 2, 5}) {
                high = step * decade;
                ticks.add(high);
                if (high >= max) {
                    break outer;
                }
            }
        }
        double span = Math.log(high / low);
        return new Scale() {
            public double position(double value) {
                return value <= low ? 0 : Math.log(value / low) / span;
            }

            public List<Double> ticks() {
                return ticks;
            }

            public boolean isLog() {
                return true;
            }
        };
    }
}

final class Fmt {
    static String count(Double v) {
        return v == null ? "—" : String.format(Locale.ROOT, "%,d", Math.round(v));
    }

    static String rate(Double v) {
        return v == null ? "—" : String.format(Locale.ROOT, "%,.1f", v);
    }

    static String compact(Double v) {
        if (v == null) {
            return "—";
        }
        return v == Math.rint(v) ? String.format(Locale.ROOT, "%,d", v.longValue()) : String.format(Locale.ROOT, "%,.1f", v);
    }
}

final class Html {
    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    static String unescape(String s) {
        return s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'").replace("&amp;", "&");
    }
}

/** Just enough JSON for global_stats.json and results.json: objects keep their key order. */
final class Json {
    private final String text;
    private int pos;

    private Json(String text) {
        this.text = text;
    }

    static Object parse(String text) {
        Json parser = new Json(text);
        Object value = parser.value();
        parser.skipWhitespace();
        if (parser.pos != text.length()) {
            throw parser.error("trailing characters");
        }
        return value;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> asObject(Object o) {
        if (!(o instanceof Map)) {
            throw new IllegalArgumentException("expected a JSON object, got " + o);
        }
        return (Map<String, Object>) o;
    }

    @SuppressWarnings("unchecked")
    static List<Object> asArray(Object o) {
        if (!(o instanceof List)) {
            throw new IllegalArgumentException("expected a JSON array, got " + o);
        }
        return (List<Object>) o;
    }

    private Object value() {
        skipWhitespace();
        if (pos >= text.length()) {
            throw error("unexpected end");
        }
        char c = text.charAt(pos);
        return switch (c) {
            case '{' -> object();
            case '[' -> array();
            case '"' -> string();
            case 't' -> literal("true", Boolean.TRUE);
            case 'f' -> literal("false", Boolean.FALSE);
            case 'n' -> literal("null", null);
            default -> number();
        };
    }

    private Map<String, Object> object() {
        Map<String, Object> map = new LinkedHashMap<>();
        pos++;
        skipWhitespace();
        if (peek('}')) {
            pos++;
            return map;
        }
        while (true) {
            skipWhitespace();
            String key = string();
            skipWhitespace();
            expect(':');
            map.put(key, value());
            skipWhitespace();
            if (peek(',')) {
                pos++;
            } else {
                expect('}');
                return map;
            }
        }
    }

    private List<Object> array() {
        List<Object> list = new ArrayList<>();
        pos++;
        skipWhitespace();
        if (peek(']')) {
            pos++;
            return list;
        }
        while (true) {
            list.add(value());
            skipWhitespace();
            if (peek(',')) {
                pos++;
            } else {
                expect(']');
                return list;
            }
        }
    }

    private String string() {
        expect('"');
        StringBuilder sb = new StringBuilder();
        while (true) {
            if (pos >= text.length()) {
                throw error("unterminated string");
            }
            char c = text.charAt(pos++);
            if (c == '"') {
                return sb.toString();
            }
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            char e = text.charAt(pos++);
            switch (e) {
                case 'n' -> sb.append('\n');
                case 't' -> sb.append('\t');
                case 'r' -> sb.append('\r');
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'u' -> {
                    sb.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
                    pos += 4;
                }
                default -> sb.append(e);
            }
        }
    }

    private Object number() {
        int start = pos;
        while (pos < text.length() && "+-0123456789.eE".indexOf(text.charAt(pos)) >= 0) {
            pos++;
        }
        String token = text.substring(start, pos);
        if (token.isEmpty()) {
            throw error("unexpected character");
        }
        if (token.matches("-?\\d+")) {
            return Long.parseLong(token);
        }
        return Double.parseDouble(token);
    }

    private Object literal(String word, Object value) {
        if (!text.startsWith(word, pos)) {
            throw error("expected " + word);
        }
        pos += word.length();
        return value;
    }

    private void skipWhitespace() {
        while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
            pos++;
        }
    }

    private boolean peek(char c) {
        return pos < text.length() && text.charAt(pos) == c;
    }

    private void expect(char c) {
        if (!peek(c)) {
            throw error("expected '" + c + "'");
        }
        pos++;
    }

    private IllegalArgumentException error(String problem) {
        return new IllegalArgumentException("JSON: " + problem + " at offset " + pos);
    }

    static String write(List<Map<String, Object>> rows) {
        StringBuilder sb = new StringBuilder("[\n");
        for (int i = 0; i < rows.size(); i++) {
            sb.append("  {");
            int j = 0;
            for (Map.Entry<String, Object> e : rows.get(i).entrySet()) {
                sb.append(j++ == 0 ? "" : ", ").append(quote(e.getKey())).append(": ").append(scalar(e.getValue()));
            }
            sb.append(i == rows.size() - 1 ? "}\n" : "},\n");
        }
        return sb.append("]").toString();
    }

    private static String scalar(Object v) {
        if (v == null) {
            return "null";
        }
        if (v instanceof Number || v instanceof Boolean) {
            return v.toString();
        }
        String s = v.toString();
        // bench.sh passes parameters as text; numbers stay numbers in the JSON.
        if (s.matches("-?(0|[1-9]\\d*)(\\.\\d+)?")) {
            return s;
        }
        return quote(s);
    }

    private static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\t' -> sb.append("\\t");
                case '\r' -> sb.append("\\r");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }
}
