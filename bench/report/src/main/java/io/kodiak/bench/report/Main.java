package io.kodiak.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * bench-report.jar's commands (bench/lib/report.sh wraps them for the bench scripts):
 * <pre>
 *   results  --bench NAME --spec bench/NAME/report.json --out DIR/results.json --command "..." --started ISO
 *            [--load-before X] [--load-samples FILE] [--repo DIR] [--version NAME=TEXT]... [--param KEY=VALUE]...
 *            --rows FILE.tsv...            the bench's measurements (a TSV whose first line names the fields,
 *                                          or FILE.jsonl: one JSON object per row, fields by name)
 *            [--meta-from OLD/results.json]  keep that file's meta instead (results remade from a run's TSV)
 *   render   --results DIR/results.json [--out-dir DIR]        report.md and report.html beside it
 *   compare  A/results.json B/results.json --out-dir DIR [--label-a A] [--label-b B] [--bench NAME]
 *   validate FILE...                                            exit 1 naming what the schema refuses
 *   verdict  --results DIR/results.json [--where FIELD=VALUE]...  exit 1 if a row (of those) failed requests or measured none
 *   gatling-rows --manifest runs.jsonl --scenario NAME --out rows.tsv   bin/bench.sh gatling's runs as a TSV for results
 * </pre>
 * Exit 0 done, 1 refused (invalid input, failed verdict), 2 usage.
 */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) {
        try {
            System.exit(run(args));
        } catch (ResultsFile.InvalidResults e) {
            System.err.println("bench-report: " + e.getMessage());
            System.exit(1);
        } catch (IOException | IllegalArgumentException e) {
            System.err.println("bench-report: " + e.getMessage());
            System.exit(e instanceof IllegalArgumentException ? 2 : 1);
        }
    }

    static int run(String[] args) throws IOException {
        if (args.length == 0) {
            throw new IllegalArgumentException("usage: results|render|compare|validate|verdict ... (see Main's javadoc)");
        }
        Options o = Options.parse(args);
        switch (args[0]) {
            case "results" -> results(o);
            case "render" -> render(o);
            case "compare" -> compare(o);
            case "validate" -> {
                return validate(o);
            }
            case "verdict" -> {
                return verdict(ResultsFile.read(Path.of(o.one("results"))), new LinkedHashMap<>(o.pairs("where")));
            }
            case "gatling-rows" -> GatlingRuns.writeTsv(Path.of(o.one("manifest")), o.one("scenario"), Path.of(o.one("out")));
            default -> throw new IllegalArgumentException("unknown command " + args[0]);
        }
        return 0;
    }

    private static void results(Options o) throws IOException {
        ObjectNode results = JsonNodeFactory.instance.objectNode();
        results.put("schema", "kodiak-bench-results/1");
        results.put("bench", o.one("bench"));
        if (o.has("meta-from")) {
            // Results remade from a run's measurements (a new layout, a fixed formula) keep the run's own
            // description: its command, time, machine and versions are what the rows were measured under.
            // Read as it is: the layout it was written with may be what is being changed.
            JsonNode old = ResultsFile.JSON.readTree(Path.of(o.one("meta-from")).toFile());
            if (!old.path("meta").isObject()) {
                throw new IOException(o.one("meta-from") + " has no meta to keep");
            }
            results.set("meta", old.get("meta"));
        } else {
            results.set("meta", Meta.of(o.one("command"), o.one("started"),
                    o.has("load-before") ? Double.valueOf(o.one("load-before")) : null,
                    o.has("load-samples") ? Path.of(o.one("load-samples")) : null,
                    Path.of(o.optional("repo", ".")), o.pairs("version"), o.pairs("param")));
        }
        JsonNode report = ResultsFile.JSON.readTree(Path.of(o.one("spec")).toFile());
        List<ObjectNode> measured = new ArrayList<>();
        for (String file : o.all("rows")) {
            Path path = Path.of(file);
            measured.addAll(JsonRows.handles(path) ? JsonRows.read(path) : TsvRows.read(path));
        }
        Derivations.apply(report.get("derive"), measured);
        Trends.apply(report.get("trends"), measured);
        ArrayNode rows = results.putArray("rows");
        measured.forEach(rows::add);
        results.set("report", report);
        ResultsFile.write(results, Path.of(o.one("out")));
    }

    private static void render(Options o) throws IOException {
        Path file = Path.of(o.one("results"));
        Path dir = Path.of(o.optional("out-dir", parentOf(file).toString()));
        write(Layout.of(ResultsFile.read(file)), dir, "report");
    }

    private static void compare(Options o) throws IOException {
        if (o.positional().size() != 2) {
            throw new IllegalArgumentException("compare needs two results files, A and B");
        }
        Path a = Path.of(o.positional().get(0));
        Path b = Path.of(o.positional().get(1));
        String labelA = o.optional("label-a", "A");
        String labelB = o.optional("label-b", "B");
        JsonNode resultsA = ResultsFile.read(a);
        if (o.has("bench") && !o.one("bench").equals(resultsA.path("bench").asText())) {
            throw new IOException(a + " holds a " + resultsA.path("bench").asText() + " run, not a " + o.one("bench") + " run");
        }
        write(Compare.of(resultsA, labelA, ResultsFile.read(b), labelB), Path.of(o.one("out-dir")), "compare");
    }

    private static int validate(Options o) throws IOException {
        int bad = 0;
        for (String name : o.positional()) {
            List<String> problems = ResultsFile.problems(ResultsFile.JSON.readTree(Path.of(name).toFile()));
            if (problems.isEmpty()) {
                System.out.println(name + ": valid");
            } else {
                bad++;
                System.out.println(name + ": " + problems.size() + " problem(s)");
                problems.forEach(p -> System.out.println("  " + p));
            }
        }
        return bad == 0 ? 0 : 1;
    }

    /** The experiment's --fail-on-ko: every row answered all its requests and measured some. */
    private static int verdict(JsonNode results, Map<String, Object> where) {
        List<JsonNode> rows = new ArrayList<>();
        results.get("rows").forEach(rows::add);
        int failed = 0;
        int judged = 0;
        for (JsonNode row : Rows.where(rows, where)) {
            judged++;
            String who = row.path("target").asText() + " (" + row.path("scenario").asText() + ")";
            if (row.path("requests").asLong(0) == 0) {
                System.out.println("verdict: " + who + " measured no request");
                failed++;
            } else if (!row.path("ko").isNumber()) {
                System.out.println("verdict: " + who + " has no failure count");
                failed++;
            } else if (row.path("ko").asLong() > 0) {
                System.out.println("verdict: " + who + " failed " + row.get("ko").asLong() + " request(s)");
                failed++;
            }
        }
        if (judged == 0) {
            System.out.println("verdict: no row to judge" + (where.isEmpty() ? "" : " where " + where));
            return 1; // a run that measured nothing did not pass
        }
        System.out.println(failed == 0 ? "verdict: every row answered all its requests" : "verdict: " + failed + " row(s) failed");
        return failed == 0 ? 0 : 1;
    }

    private static void write(Page page, Path dir, String name) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve(name + ".md"), Markdown.of(page), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve(name + ".html"), Html.of(page), StandardCharsets.UTF_8);
        System.out.println("bench-report: " + dir.resolve(name + ".md") + ", " + dir.resolve(name + ".html"));
    }

    private static Path parentOf(Path file) {
        Path parent = file.toAbsolutePath().getParent();
        return parent == null ? Path.of(".") : parent;
    }

    /** --name value options (repeatable) and positional arguments after the command. */
    record Options(Map<String, List<String>> named, List<String> positional) {
        static Options parse(String[] args) {
            Map<String, List<String>> named = new LinkedHashMap<>();
            List<String> positional = new ArrayList<>();
            for (int i = 1; i < args.length; i++) {
                if (args[i].startsWith("--")) {
                    if (i + 1 >= args.length) {
                        throw new IllegalArgumentException(args[i] + " needs a value");
                    }
                    named.computeIfAbsent(args[i].substring(2), k -> new ArrayList<>()).add(args[++i]);
                } else {
                    positional.add(args[i]);
                }
            }
            return new Options(named, positional);
        }

        boolean has(String name) {
            return named.containsKey(name);
        }

        String one(String name) {
            List<String> values = named.get(name);
            if (values == null) {
                throw new IllegalArgumentException("--" + name + " is required");
            }
            return values.get(values.size() - 1);
        }

        String optional(String name, String otherwise) {
            return has(name) ? one(name) : otherwise;
        }

        List<String> all(String name) {
            return named.getOrDefault(name, List.of());
        }

        /** Repeated --name KEY=VALUE options, in order. */
        Map<String, String> pairs(String name) {
            Map<String, String> pairs = new LinkedHashMap<>();
            for (String p : all(name)) {
                int eq = p.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("--" + name + " " + p + ": expected KEY=VALUE");
                }
                pairs.put(p.substring(0, eq), p.substring(eq + 1));
            }
            return pairs;
        }
    }
}
