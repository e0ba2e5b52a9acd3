package io.kodiak.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kodiak.bench.report.Page.Cell;
import io.kodiak.bench.report.Page.Table;
import java.util.List;
import org.junit.jupiter.api.Test;

class LayoutTest {

    private static final String CPU_SPEC = """
            {"title": "t", "sections": [{"title": "CPU", "rows": ["payload"], "reference": "nginx", "where": {"phase": "matrix"},
              "columns": [{"field": "cpu", "label": "µs", "ratio": true, "chart": "linear"},
                          {"field": "ko", "label": "errors", "total": true},
                          {"field": "report", "label": "details", "link": true}]}]}""";

    private static ObjectNode run(String target, String payload, int rep, double cpu, int ko) {
        ObjectNode r = Fixtures.row(target, "matrix " + payload, rep);
        r.put("phase", "matrix");
        r.put("payload", payload);
        r.put("cpu", cpu);
        r.put("ko", ko);
        r.put("report", target + "/index.html");
        return r;
    }

    @Test
    void repetitionsBecomeMedianWithRangeAndRatiosDivideMedians() throws Exception {
        Page page = Layout.of(Fixtures.results(CPU_SPEC,
                run("kodiak", "512 B", 1, 30, 0), run("nginx", "512 B", 1, 10, 0),
                run("kodiak", "512 B", 2, 36, 2), run("nginx", "512 B", 2, 12, 0),
                run("kodiak", "512 B", 3, 33, 1), run("nginx", "512 B", 3, 11, 0)));
        Table t = page.tables().get(0);
        assertEquals(List.of("payload", "kodiak µs", "nginx µs", "kodiak/nginx µs", "kodiak errors", "nginx errors",
                "kodiak details", "nginx details"), t.header());
        List<Cell> line = t.rows().get(0);
        assertEquals("512 B", line.get(0).text());
        assertEquals("33 [30–36]", line.get(1).text());
        assertEquals("11 [10–12]", line.get(2).text());
        assertEquals(3.0, line.get(3).value(), 1e-9);
        assertEquals(3.0, line.get(3).min(), 1e-9, "each round's ratio is 3: the rounds' drift cancels");
        assertEquals(3.0, line.get(3).max(), 1e-9);
        assertEquals("3", line.get(4).text(), "a count is summed over the runs");
        assertEquals(2.0, line.get(4).max(), "each run's own count on hover");
        assertEquals("kodiak/index.html", line.get(6).link());
        assertEquals("details", line.get(6).text(), "a link reads as its column's label");
    }

    @Test
    void whereKeepsOnlyItsRowsAndAChartHasOneDatasetPerSeries() throws Exception {
        ObjectNode scale = run("kodiak", "512 B", 1, 99, 0);
        scale.put("phase", "scale");
        Page page = Layout.of(Fixtures.results(CPU_SPEC, run("kodiak", "512 B", 1, 30, 0), run("nginx", "512 B", 1, 10, 0),
                run("kodiak", "10 KB", 1, 40, 0), scale));
        Table t = page.tables().get(0);
        assertEquals(2, t.rows().size());
        assertEquals("30", t.rows().get(0).get(1).text(), "the scale row is not in the matrix table");
        Page.Chart chart = t.charts().get(0);
        assertEquals(List.of("512 B", "10 KB"), chart.labels());
        assertEquals(List.of("kodiak", "nginx"), chart.datasets().stream().map(Page.Dataset::label).toList());
        assertNull(chart.datasets().get(1).points().get(1), "nginx measured nothing at 10 KB: a gap, not a zero");
        assertEquals("", t.rows().get(1).get(3).text(), "no ratio without the reference");
    }

    @Test
    void aSectionWithoutSeriesHasOneColumnPerMetric() throws Exception {
        String spec = """
                {"title": "t", "sections": [{"title": "per proxy", "rows": ["target"], "series": null,
                  "columns": [{"field": "cpu", "label": "µs", "digits": 1}]}]}""";
        Page page = Layout.of(Fixtures.results(spec, run("kodiak", "a", 1, 30, 0), run("nginx", "a", 1, 10, 0)));
        Table t = page.tables().get(0);
        assertEquals(List.of("target", "µs"), t.header());
        assertEquals(List.of("kodiak", "30.0"), t.rows().get(0).stream().map(Cell::text).toList());
        assertEquals(1, t.keys());
    }

    @Test
    void textFieldsAreListedNotAggregated() throws Exception {
        String spec = """
                {"title": "t", "sections": [{"title": "s", "rows": ["target"], "series": null,
                  "columns": [{"field": "note", "label": "note"}]}]}""";
        ObjectNode a = run("kodiak", "a", 1, 1, 0);
        a.put("note", "warm");
        ObjectNode b = run("kodiak", "a", 2, 1, 0);
        b.put("note", "cold");
        Table t = Layout.of(Fixtures.results(spec, a, b)).tables().get(0);
        assertEquals("warm, cold", t.rows().get(0).get(1).text());
        assertTrue(t.charts().isEmpty());
    }

    @Test
    void sectionsAndChecksThisRunDidNotMeasureAreLeftOut() throws Exception {
        String spec = """
                {"title": "t", "sections": [
                   {"title": "matrix", "where": {"phase": "matrix"}, "columns": [{"field": "cpu", "label": "µs"}]},
                   {"title": "scale", "where": {"phase": "scale"}, "columns": [{"field": "cpu", "label": "µs"}]}],
                 "checks": [
                   {"title": "vs nginx", "field": "cpu", "target": "kodiak", "reference": "nginx", "max_ratio": 1.0},
                   {"title": "vs undertow", "field": "cpu", "target": "kodiak", "reference": "undertow", "max_ratio": 1.0}]}""";
        Page page = Layout.of(Fixtures.results(spec, run("kodiak", "512 B", 1, 30, 0), run("nginx", "512 B", 1, 10, 0)));
        assertEquals(List.of("matrix"), page.tables().stream().map(Table::title).toList());
        assertEquals(List.of("vs nginx"), page.checks().stream().map(Page.Verdict::title).toList());
    }

    @Test
    void withoutRepetitionsInCommonARatioDividesMediansAndSpansTheExtremes() throws Exception {
        ObjectNode a = run("kodiak", "512 B", 1, 30, 0);
        ObjectNode b = run("kodiak", "512 B", 2, 36, 0);
        ObjectNode c = run("nginx", "512 B", 3, 10, 0);
        ObjectNode d = run("nginx", "512 B", 4, 12, 0);
        Cell ratio = Layout.of(Fixtures.results(CPU_SPEC, a, b, c, d)).tables().get(0).rows().get(0).get(3);
        assertEquals(33.0 / 11, ratio.value(), 1e-9);
        assertEquals(30.0 / 12, ratio.min(), 1e-9);
        assertEquals(36.0 / 10, ratio.max(), 1e-9);
    }

    @Test
    void onlyARelativePathIsALink() throws Exception {
        for (String hostile : new String[] {"javascript:alert(1)", " JavaScript:alert(1)", "http://evil.example/", "/etc/passwd",
                "//evil.example/x", "\\\\host\\share", "../../outside.html", "a\nb"}) {
            ObjectNode r = run("kodiak", "512 B", 1, 30, 0);
            r.put("report", hostile);
            Cell cell = Layout.of(Fixtures.results(CPU_SPEC, r)).tables().get(0).rows().get(0).get(3);
            assertNull(cell.link(), hostile);
            assertEquals(hostile, cell.text(), "shown as text");
        }
        ObjectNode r = run("kodiak", "512 B", 1, 30, 0);
        r.put("report", "gatling/kodiak-1/index.html");
        assertEquals("gatling/kodiak-1/index.html", Layout.of(Fixtures.results(CPU_SPEC, r)).tables().get(0).rows().get(0).get(3).link());
    }
}
