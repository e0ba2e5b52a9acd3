package io.kodiak.bench.report;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * bin/bench.sh gatling's runs as rows for the {@code results} command (bench-report gatling-rows): one row
 * per line of the manifest the script wrote, with Gatling's own figures (global_stats.json) and, when
 * requests failed, the most frequent reason (simulation.log).
 *
 * <p>The manifest (runs.jsonl) is one JSON object per run with the fields {@code target}, {@code label},
 * {@code exit_code}, {@code folder} and {@code note} (empty or null when there is none), read by name; a
 * runs.tsv of earlier runs is {@code target TAB label TAB exit-code TAB results-folder [TAB note]} a line.
 * The folder is relative to the manifest, and Gatling names the run's folder inside it. The note says why a run left
 * nothing when the script knows better than the exit code (the target did not start). The manifest sits
 * in the run's directory, beside results.json, so each row's link to Gatling's report is relative to it.
 */
final class GatlingRuns {

    /** The row's fields, in the order of the TSV's columns. */
    static final List<String> FIELDS = List.of("target", "label", "scenario", "source", "exit_code", "requests", "ok",
            "ko", "rps", "p50_ms", "p75_ms", "p95_ms", "p99_ms", "mean_ms", "min_ms", "max_ms", "gatling_report", "failure");

    /** Every row here was measured by this run; the bench's other rows (the 2015 article's) say otherwise. */
    static final String SOURCE = "this run";

    private GatlingRuns() {
    }

    static void writeTsv(Path manifest, String scenario, Path tsv) throws IOException {
        List<Map<String, Object>> rows = rows(manifest, scenario);
        StringBuilder out = new StringBuilder(String.join("\t", FIELDS)).append('\n');
        for (Map<String, Object> row : rows) {
            out.append(FIELDS.stream().map(f -> cell(row.get(f))).collect(Collectors.joining("\t"))).append('\n');
        }
        Files.writeString(tsv, out, StandardCharsets.UTF_8);
    }

    static List<Map<String, Object>> rows(Path manifest, String scenario) throws IOException {
        Path dir = manifest.toAbsolutePath().getParent();
        List<Map<String, Object>> rows = new ArrayList<>();
        if (JsonRows.handles(manifest)) {
            List<ObjectNode> lines = JsonRows.read(manifest);
            for (int n = 0; n < lines.size(); n++) {
                rows.add(row(Line.of(lines.get(n), manifest, n + 1), dir, scenario));
            }
            return rows;
        }
        List<String> lines = Files.readAllLines(manifest, StandardCharsets.UTF_8);
        for (int n = 0; n < lines.size(); n++) {
            if (!lines.get(n).isBlank()) {
                rows.add(row(Line.parse(lines.get(n), manifest, n + 1), dir, scenario));
            }
        }
        return rows;
    }

    private static Map<String, Object> row(Line line, Path dir, String scenario) throws IOException {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("target", line.target());
        row.put("label", line.label());
        row.put("scenario", scenario);
        row.put("source", SOURCE);
        row.put("exit_code", line.exitCode());
        Optional<Path> run = latestRun(dir.resolve(line.folder()));
        if (run.isEmpty()) {
            row.put("failure", line.note() != null ? line.note()
                    : "no Gatling results (run exited " + line.exitCode() + "; see logs/gatling-" + line.target() + ".log)");
            return row;
        }
        GatlingStats s = GatlingStats.read(run.get().resolve("js/global_stats.json"));
        long ko = Math.round(s.numberOfRequests().ko());
        row.put("requests", Math.round(s.numberOfRequests().total()));
        row.put("ok", Math.round(s.numberOfRequests().ok()));
        row.put("ko", ko);
        row.put("rps", s.meanNumberOfRequestsPerSecond().total());
        row.put("p50_ms", s.p50());
        row.put("p75_ms", s.p75());
        row.put("p95_ms", s.p95());
        row.put("p99_ms", s.p99());
        row.put("mean_ms", s.meanResponseTime().total());
        row.put("min_ms", s.minResponseTime().total());
        row.put("max_ms", s.maxResponseTime().total());
        row.put("gatling_report", dir.relativize(run.get().resolve("index.html")).toString());
        if (ko > 0) {
            row.put("failure", why(run.get()));
        }
        return row;
    }

    private static String why(Path run) throws IOException {
        Path log = run.resolve("simulation.log");
        return (Files.isRegularFile(log) ? GatlingErrors.summary(log) : Optional.<String>empty())
                .orElse("failed requests: see the Gatling report");
    }

    /** The run Gatling left in a target's folder (the newest, should a folder hold several). */
    static Optional<Path> latestRun(Path folder) throws IOException {
        if (!Files.isDirectory(folder)) {
            return Optional.empty();
        }
        try (Stream<Path> children = Files.list(folder)) {
            return children.filter(p -> Files.isRegularFile(p.resolve("js/global_stats.json")))
                    .max(Path::compareTo).map(Path::toAbsolutePath);
        }
    }

    /** A TSV cell: null is empty, and nothing inside a value may end its cell or its line. */
    static String cell(Object value) {
        if (value == null) {
            return "";
        }
        if (value instanceof Double d && d == Math.rint(d) && Math.abs(d) < 1e15) {
            return Long.toString(d.longValue()); // Gatling's whole milliseconds stay whole numbers
        }
        return value.toString().replaceAll("[\t\r\n]+", " ");
    }

    record Line(String target, String label, int exitCode, String folder, String note) {
        static Line of(ObjectNode json, Path manifest, int number) throws IOException {
            for (String field : List.of("target", "label", "exit_code", "folder")) {
                if (json.path(field).isNull() || json.path(field).isMissingNode()) {
                    throw new IOException(manifest + " run " + number + ": no " + field);
                }
            }
            if (!json.get("exit_code").canConvertToInt()) {
                throw new IOException(manifest + " run " + number + ": the exit code is not a number: " + json.get("exit_code"));
            }
            String note = json.path("note").asText("");
            return new Line(json.get("target").asText(), json.get("label").asText(), json.get("exit_code").asInt(),
                    json.get("folder").asText(), note.isBlank() ? null : note);
        }

        static Line parse(String text, Path manifest, int number) throws IOException {
            String[] cells = text.split("\t", -1);
            if (cells.length < 4 || cells.length > 5) {
                throw new IOException(manifest + " line " + number + ": expected target, label, exit code, results folder"
                        + " [, note] separated by tabs, got " + cells.length + " cell(s)");
            }
            int exitCode;
            try {
                exitCode = Integer.parseInt(cells[2].strip());
            } catch (NumberFormatException e) {
                throw new IOException(manifest + " line " + number + ": the exit code is not a number: " + cells[2], e);
            }
            String note = cells.length == 5 && !cells[4].isBlank() ? cells[4] : null;
            return new Line(cells[0], cells[1], exitCode, cells[3], note);
        }
    }
}
