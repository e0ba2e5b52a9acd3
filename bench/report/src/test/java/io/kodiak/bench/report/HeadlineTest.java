package io.kodiak.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kodiak.bench.report.Page.Cell;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The verdict a page opens with, and the difference columns that state what a variant costs. */
class HeadlineTest {

    private static final String SPEC = """
            {"title": "t",
             "verdict": {"rows": ["payload"], "reference": "nginx",
                         "measures": [{"field": "rps", "label": "req/s"}, {"field": "cpu", "label": "CPU µs/req"}]},
             "sections": [{"title": "cost", "rows": ["payload"], "reference": "kodiak",
                           "columns": [{"field": "cpu", "label": "µs", "digits": 1, "difference": true}]}]}""";

    private static ObjectNode run(String target, String payload, int rep, double rps, Double cpu) {
        ObjectNode r = Fixtures.row(target, "matrix " + payload, rep);
        r.put("payload", payload);
        r.put("rps", rps);
        if (cpu == null) {
            r.putNull("cpu");
        } else {
            r.put("cpu", cpu);
        }
        return r;
    }

    @Test
    void eachTargetInOneSentenceWithTheMedianOverTheCellsOfItsRoundByRoundRatios() throws Exception {
        Page page = Layout.of(Fixtures.results(SPEC,
                run("nginx", "512 B", 1, 100, 10.0), run("kodiak", "512 B", 1, 80, 20.0),
                run("nginx", "10 KB", 1, 50, 20.0), run("kodiak", "10 KB", 1, 50, 30.0),
                run("nginx", "100 KB", 1, 10, 40.0), run("kodiak", "100 KB", 1, 9, 40.0),
                run("direct", "512 B", 1, 300, null)));
        Page.Headline h = page.headline();
        assertEquals(List.of("kodiak: 0.90× nginx's req/s [0.80–1.00], 1.50× its CPU µs/req [1.00–2.00], over 3 cells.",
                "direct: 3.00× nginx's req/s, over 1 cell."), h.sentences());
        assertEquals(List.of("kodiak", "direct"), h.chart().labels());
        assertEquals(1.5, h.chart().datasets().get(1).points().get(0).value(), 1e-9);
        assertNull(h.chart().datasets().get(1).points().get(1), "direct has no CPU of its own: a gap, not a zero");
        String md = Markdown.of(page);
        assertTrue(md.startsWith("# t\n\n## Verdict\n\n- kodiak: 0.90×"), "the verdict comes before the description: " + md);
    }

    @Test
    void noVerdictWithoutItsReference() throws Exception {
        assertNull(Layout.of(Fixtures.results(SPEC, run("kodiak", "512 B", 1, 80, 20.0))).headline());
    }

    @Test
    void aDifferenceIsPairedRoundByRound() throws Exception {
        Page page = Layout.of(Fixtures.results(SPEC,
                run("kodiak", "512 B", 1, 0, 40.0), run("kodiak-trace", "512 B", 1, 0, 41.0),
                run("kodiak", "512 B", 2, 0, 50.0), run("kodiak-trace", "512 B", 2, 0, 51.5),
                run("kodiak", "512 B", 3, 0, 45.0), run("kodiak-trace", "512 B", 3, 0, 47.0)));
        assertEquals(List.of("payload", "kodiak µs", "kodiak-trace µs", "kodiak-trace − kodiak µs"), page.tables().get(0).header());
        Cell cost = page.tables().get(0).rows().get(0).get(3);
        assertEquals("1.5 [1.0–2.0]", cost.text(), "each round's own difference: the drift between rounds cancels");
    }
}
