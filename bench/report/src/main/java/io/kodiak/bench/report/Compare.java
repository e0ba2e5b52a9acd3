package io.kodiak.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import io.kodiak.bench.report.Page.Cell;
import io.kodiak.bench.report.Page.Chart;
import io.kodiak.bench.report.Page.Dataset;
import io.kodiak.bench.report.Page.Fact;
import io.kodiak.bench.report.Page.Table;
import io.kodiak.bench.report.Spec.Column;
import io.kodiak.bench.report.Spec.Section;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Two runs of one bench side by side (bin/bench.sh BENCH --compare A B): per section and measured column,
 * each table row and series with A's and B's median [min-max] and B/A, whose range pairs the extremes
 * (B's min over A's max to B's max over A's min), so a ratio inside the noise shows as a range across 1.
 */
final class Compare {

    private Compare() {
    }

    static Page of(JsonNode a, String labelA, JsonNode b, String labelB) throws IOException {
        if (!a.path("bench").asText().equals(b.path("bench").asText())) {
            throw new IOException("cannot compare a " + a.path("bench").asText() + " run with a " + b.path("bench").asText() + " run");
        }
        Spec spec = Spec.of(a.get("report"));
        List<JsonNode> rowsA = rows(a);
        List<JsonNode> rowsB = rows(b);
        List<Table> tables = new ArrayList<>();
        for (Section section : spec.sections()) {
            List<JsonNode> inA = Rows.where(rowsA, section.where());
            List<JsonNode> inB = Rows.where(rowsB, section.where());
            if (!section.filledBy(inA) && !section.filledBy(inB)) {
                continue;
            }
            for (Column column : section.columns()) {
                if (!column.link() && !(Rows.numbers(inA, column.field()).isEmpty() && Rows.numbers(inB, column.field()).isEmpty())) {
                    tables.add(table(section, column, inA, labelA, inB, labelB));
                }
            }
        }
        List<Fact> facts = new ArrayList<>();
        facts.add(new Fact(labelA, run(a)));
        facts.add(new Fact(labelB, run(b)));
        List<String> notes = List.of("B/A above 1 means B measured more than A (slower where the column is a cost, faster "
                + "where it is a rate); a range across 1 is within the runs' spread.");
        return new Page(spec.title() + ": " + labelA + " against " + labelB, null, facts, notes, List.of(), tables,
                "bin/bench.sh " + a.path("bench").asText() + " --compare A B");
    }

    private static String run(JsonNode results) {
        JsonNode meta = results.path("meta");
        return meta.path("command").asText() + " at " + meta.path("commit").asText() + ", " + meta.path("started").asText();
    }

    private static List<JsonNode> rows(JsonNode results) {
        List<JsonNode> rows = new ArrayList<>();
        results.get("rows").forEach(rows::add);
        return rows;
    }

    private static Table table(Section section, Column shown, List<JsonNode> inA, String labelA, List<JsonNode> inB, String labelB) {
        // Two runs can have different numbers of repetitions: counts are compared per run (their medians), not as sums.
        Column column = shown.total()
                ? new Column(shown.field(), shown.label() + " per run", shown.digits(), shown.ratio(), shown.difference(), shown.chart(),
                        shown.link(), false)
                : shown;
        String series = section.seriesField();
        List<String> seriesValues = series == null ? Arrays.asList((String) null) : union(Rows.values(inA, series), Rows.values(inB, series));
        Map<List<String>, List<JsonNode>> groupsA = Rows.groupBy(inA, section.rows());
        Map<List<String>, List<JsonNode>> groupsB = Rows.groupBy(inB, section.rows());
        Set<List<String>> keys = new LinkedHashSet<>(groupsA.keySet());
        keys.addAll(groupsB.keySet());

        List<String> header = new ArrayList<>(section.rows());
        if (series != null) {
            header.add(series);
        }
        header.addAll(List.of(labelA, labelB, labelB + "/" + labelA));
        List<List<Cell>> lines = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        List<List<Cell>> ratiosBySeries = new ArrayList<>();
        seriesValues.forEach(s -> ratiosBySeries.add(new ArrayList<>()));
        for (List<String> key : keys) {
            labels.add(Rows.label(key));
            for (int i = 0; i < seriesValues.size(); i++) {
                String s = seriesValues.get(i);
                Cell ca = Layout.cell(column, Rows.withValue(groupsA.getOrDefault(key, List.of()), series, s));
                Cell cb = Layout.cell(column, Rows.withValue(groupsB.getOrDefault(key, List.of()), series, s));
                ratiosBySeries.get(i).add(compared(lines, key, series == null ? null : s, ca, cb));
            }
        }
        // Within-run ratios (kodiak/nginx) compared across the runs: the machine's drift between the two
        // runs cancels out of them, which it does not out of either target's own B/A.
        List<String> ratioSeries = Layout.ratioSeries(section, column, seriesValues);
        for (String s : ratioSeries) {
            String name = s + "/" + section.reference();
            List<Cell> points = new ArrayList<>();
            for (List<String> key : keys) {
                List<JsonNode> a = groupsA.getOrDefault(key, List.of());
                List<JsonNode> b = groupsB.getOrDefault(key, List.of());
                Cell ca = Layout.ratio(column, Rows.withValue(a, series, s), Rows.withValue(a, series, section.reference()));
                Cell cb = Layout.ratio(column, Rows.withValue(b, series, s), Rows.withValue(b, series, section.reference()));
                points.add(compared(lines, key, name, ca, cb));
            }
            ratiosBySeries.add(points);
        }
        List<String> datasetNames = new ArrayList<>(seriesValues.stream().map(s -> s == null ? column.label() : s).toList());
        ratioSeries.forEach(s -> datasetNames.add(s + "/" + section.reference()));

        List<Dataset> datasets = new ArrayList<>();
        for (int i = 0; i < datasetNames.size(); i++) {
            datasets.add(new Dataset(datasetNames.get(i), ratiosBySeries.get(i)));
        }
        boolean anyRatio = ratiosBySeries.stream().flatMap(List::stream).anyMatch(java.util.Objects::nonNull);
        List<Chart> charts = anyRatio
                ? List.of(new Chart(labelB + "/" + labelA + ": " + column.label(), "linear", labels, datasets))
                : List.of(); // 0 against 0 (no failures in either run): a table, nothing to draw
        int keysShown = section.rows().size() + (series == null ? 0 : 1);
        return new Table(section.title() + ": " + column.label(), null, keysShown, header, lines, charts);
    }

    /**
     * One line of a compare table (the row's key, the series it is about, A, B and B/A), left out when
     * neither run measured it; returns B/A, or null when it has no value (for the chart: a gap).
     */
    private static Cell compared(List<List<Cell>> lines, List<String> key, String name, Cell a, Cell b) {
        Cell ratio = !measured(a) || !measured(b) || a.value() == 0 ? Cell.EMPTY : Cell.of(spread(b).over(spread(a)), 2);
        if (a.value() != null || b.value() != null) {
            List<Cell> line = new ArrayList<>();
            key.forEach(k -> line.add(Cell.text(k)));
            if (name != null) {
                line.add(Cell.text(name));
            }
            line.addAll(List.of(a, b, ratio));
            lines.add(line);
        }
        return ratio.value() == null ? null : ratio;
    }

    private static boolean measured(Cell c) {
        return c.value() != null && c.min() != null && c.max() != null;
    }

    private static Spread spread(Cell c) {
        return new Spread(c.value(), c.min(), c.max(), c.runs());
    }

    private static List<String> union(List<String> a, List<String> b) {
        Set<String> all = new LinkedHashSet<>(a);
        all.addAll(b);
        return List.copyOf(all);
    }
}
