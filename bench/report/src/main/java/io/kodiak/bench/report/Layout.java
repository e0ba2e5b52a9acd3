package io.kodiak.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import io.kodiak.bench.report.Page.Cell;
import io.kodiak.bench.report.Page.Chart;
import io.kodiak.bench.report.Page.Dataset;
import io.kodiak.bench.report.Page.Table;
import io.kodiak.bench.report.Spec.Column;
import io.kodiak.bench.report.Spec.Section;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/** Lays one results file out as a page: its description, its checks, one table (and charts) per section. */
final class Layout {

    private Layout() {
    }

    static Page of(JsonNode results) throws java.io.IOException {
        Spec spec = Spec.of(results.get("report"));
        List<JsonNode> rows = new ArrayList<>();
        results.get("rows").forEach(rows::add);
        // A bench's layout names every section and check it can fill; a run fills those its options
        // chose (some payloads, no scale phase): the others are left out rather than shown empty.
        List<Table> tables = new ArrayList<>();
        for (Section section : spec.sections()) {
            List<JsonNode> kept = Rows.where(rows, section.where());
            if (section.filledBy(kept)) {
                tables.add(table(section, kept));
            }
        }
        List<Page.Verdict> verdicts = spec.checks().stream().map(c -> Checks.judge(c, rows))
                .filter(v -> v.judged() > 0).toList();
        JsonNode meta = results.get("meta");
        Page.Headline headline = spec.verdict() == null ? null : Headline.of(spec.verdict(), rows);
        return new Page(spec.title(), headline, MetaFacts.of(meta), spec.notes(), verdicts, tables, meta.path("command").asText());
    }

    static Table table(Section section, List<JsonNode> rows) {
        String series = section.seriesField();
        List<String> seriesValues = series == null ? Arrays.asList((String) null) : Rows.values(rows, series);
        Map<List<String>, List<JsonNode>> groups = Rows.groupBy(rows, section.rows());

        List<String> header = new ArrayList<>(section.rows());
        for (Column column : section.columns()) {
            for (String s : seriesValues) {
                header.add(s == null ? column.label() : s + " " + column.label());
            }
            for (String s : ratioSeries(section, column, seriesValues)) {
                header.add(s + "/" + section.reference() + " " + column.label());
            }
            for (String s : differenceSeries(section, column, seriesValues)) {
                header.add(s + " − " + section.reference() + " " + column.label());
            }
        }
        List<List<Cell>> lines = new ArrayList<>();
        for (Map.Entry<List<String>, List<JsonNode>> group : groups.entrySet()) {
            List<Cell> line = new ArrayList<>();
            group.getKey().forEach(k -> line.add(Cell.text(k)));
            for (Column column : section.columns()) {
                for (String s : seriesValues) {
                    line.add(cell(column, Rows.withValue(group.getValue(), series, s)));
                }
                for (String s : ratioSeries(section, column, seriesValues)) {
                    line.add(ratio(column, Rows.withValue(group.getValue(), series, s),
                            Rows.withValue(group.getValue(), series, section.reference())));
                }
                for (String s : differenceSeries(section, column, seriesValues)) {
                    Spread d = Ratios.difference(Rows.withValue(group.getValue(), series, s),
                            Rows.withValue(group.getValue(), series, section.reference()), column.field());
                    line.add(d == null ? Cell.EMPTY : Cell.of(d, column.digits()));
                }
            }
            lines.add(line);
        }
        List<Chart> charts = new ArrayList<>();
        for (Column column : section.columns()) {
            if (column.chart() == null) {
                continue;
            }
            List<Dataset> datasets = new ArrayList<>();
            for (String s : seriesValues) {
                List<Cell> points = new ArrayList<>();
                for (List<JsonNode> members : groups.values()) {
                    Cell c = cell(column, Rows.withValue(members, series, s));
                    points.add(c.value() == null ? null : c);
                }
                datasets.add(new Dataset(s == null ? column.label() : s, points));
            }
            List<String> labels = groups.keySet().stream().map(Rows::label).toList();
            charts.add(new Chart(column.label(), column.chart(), labels, datasets));
        }
        return new Table(section.title(), section.text(), section.rows().size(), header, lines, charts);
    }

    /** The series a ratio column divides by the section's reference (none when it has no reference among them). */
    static List<String> ratioSeries(Section section, Column column, List<String> seriesValues) {
        if (!column.ratio() || section.reference() == null || !seriesValues.contains(section.reference())) {
            return List.of();
        }
        return seriesValues.stream().filter(s -> !section.reference().equals(s)).toList();
    }

    /** The series a difference column subtracts the section's reference from. */
    static List<String> differenceSeries(Section section, Column column, List<String> seriesValues) {
        if (!column.difference() || section.reference() == null || !seriesValues.contains(section.reference())) {
            return List.of();
        }
        return seriesValues.stream().filter(s -> !section.reference().equals(s)).toList();
    }

    /** One field over the rows of one table row and series value: numbers aggregated, text listed. */
    static Cell cell(Column column, List<JsonNode> rows) {
        List<Double> numbers = Rows.numbers(rows, column.field());
        if (!numbers.isEmpty() && !column.link()) {
            return column.total() ? Cell.total(Spread.total(numbers), column.digits()) : Cell.of(Spread.median(numbers), column.digits());
        }
        List<String> texts = Rows.values(rows, column.field());
        if (texts.isEmpty()) {
            return Cell.EMPTY;
        }
        if (column.link()) {
            // A link reads as what it opens (the column's label); the path itself is the link's target, and
            // only a path inside the run's directory is one: a URL with a scheme (javascript:, http:) or an
            // absolute path from a results file is shown as text.
            String path = texts.get(0);
            return RelativePath.isSafe(path) ? Cell.link(column.label(), path) : Cell.text(path);
        }
        return Cell.text(String.join(", ", texts));
    }

    static Cell ratio(Column column, List<JsonNode> rows, List<JsonNode> reference) {
        Spread r = Ratios.of(rows, reference, column.field());
        return r == null ? Cell.EMPTY : Cell.of(r, 2); // a ratio, whatever the digits of the values it divides
    }
}
