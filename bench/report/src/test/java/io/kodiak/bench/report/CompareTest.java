package io.kodiak.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kodiak.bench.report.Page.Cell;
import io.kodiak.bench.report.Page.Table;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

class CompareTest {

    private static final String SPEC = """
            {"title": "Throughput", "sections": [{"title": "CPU", "rows": ["scenario"],
              "columns": [{"field": "cpu", "label": "µs"}, {"field": "report", "label": "link", "link": true}]}]}""";

    private static ObjectNode run(String target, int rep, double cpu) {
        ObjectNode r = Fixtures.row(target, "512 B × 80", rep);
        r.put("cpu", cpu);
        r.put("report", "x.html");
        return r;
    }

    @Test
    void eachCellGetsBothMediansAndTheirRatioWithItsSpread() throws Exception {
        ObjectNode a = Fixtures.results(SPEC, run("kodiak", 1, 20), run("kodiak", 2, 22), run("nginx", 1, 10));
        ObjectNode b = Fixtures.results(SPEC, run("kodiak", 1, 30), run("kodiak", 2, 33), run("nginx", 1, 10));
        Page page = Compare.of(a, "before", b, "after");
        assertEquals(1, page.tables().size(), "the link column is not compared");
        Table t = page.tables().get(0);
        assertEquals(List.of("scenario", "target", "before", "after", "after/before"), t.header());
        List<Cell> kodiak = t.rows().get(0);
        assertEquals("kodiak", kodiak.get(1).text());
        assertEquals(31.5 / 21, kodiak.get(4).value(), 1e-9);
        assertEquals(30.0 / 22, kodiak.get(4).min(), 1e-9);
        assertEquals(33.0 / 20, kodiak.get(4).max(), 1e-9);
        assertEquals("1.00", t.rows().get(1).get(4).text(), "nginx unchanged");
    }

    @Test
    void twoDifferentBenchesAreNotCompared() throws Exception {
        ObjectNode a = Fixtures.results(SPEC, run("kodiak", 1, 20));
        ObjectNode b = Fixtures.results(SPEC, run("kodiak", 1, 20));
        b.put("bench", "tls");
        assertThrows(IOException.class, () -> Compare.of(a, "A", b, "B"));
    }

    @Test
    void aRatioColumnIsComparedWithinEachRunSoTheMachinesDriftCancels() throws Exception {
        String spec = """
                {"title": "Throughput", "sections": [{"title": "CPU", "rows": ["scenario"], "reference": "nginx",
                  "columns": [{"field": "cpu", "label": "µs", "ratio": true}]}]}""";
        // B's machine was 10 % slower for everyone: Kodiak's own B/A is 1.10, its ratio to nginx unchanged.
        ObjectNode a = Fixtures.results(spec, run("kodiak", 1, 20), run("nginx", 1, 10));
        ObjectNode b = Fixtures.results(spec, run("kodiak", 1, 22), run("nginx", 1, 11));
        Table t = Compare.of(a, "A", b, "B").tables().get(0);
        List<Cell> within = t.rows().get(t.rows().size() - 1);
        assertEquals("kodiak/nginx", within.get(1).text());
        assertEquals(2.0, within.get(2).value(), 1e-9);
        assertEquals(2.0, within.get(3).value(), 1e-9);
        assertEquals(1.0, within.get(4).value(), 1e-9);
        assertEquals(1.1, t.rows().get(0).get(4).value(), 1e-9, "Kodiak's own B/A carries the drift");
        assertEquals(List.of("kodiak", "nginx", "kodiak/nginx"),
                t.charts().get(0).datasets().stream().map(Page.Dataset::label).toList());
    }
}
