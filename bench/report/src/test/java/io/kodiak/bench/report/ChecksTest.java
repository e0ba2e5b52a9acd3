package io.kodiak.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChecksTest {

    private static List<com.fasterxml.jackson.databind.JsonNode> cells(double... kodiakThenNginx) {
        List<com.fasterxml.jackson.databind.JsonNode> rows = new ArrayList<>();
        for (int i = 0; i < kodiakThenNginx.length; i += 2) {
            for (String target : new String[] {"kodiak", "nginx"}) {
                ObjectNode r = Fixtures.row(target, "cell " + i / 2, 1);
                r.put("p99_ms", kodiakThenNginx[i + (target.equals("kodiak") ? 0 : 1)]);
                rows.add(r);
            }
        }
        return rows;
    }

    private static Spec.Check check(Double maxRatio, Double maxExcess, Double max, Integer atLeast, String reference) {
        return new Spec.Check("c", null, null, "p99_ms", "kodiak", reference, maxRatio, null, maxExcess, max, null, atLeast, null);
    }

    @Test
    void aRatioCheckNamesTheCellsThatMissIt() {
        Page.Verdict v = Checks.judge(check(1.10, null, null, null, "nginx"), cells(10, 10, 12, 10, 11, 10));
        assertFalse(v.met());
        assertEquals(2, v.passed());
        assertEquals(3, v.judged());
        assertEquals("cell 1 (1.200)", v.misses());
    }

    @Test
    void atLeastLetsSomeCellsMiss() {
        assertTrue(Checks.judge(check(1.10, null, null, 2, "nginx"), cells(10, 10, 12, 10, 11, 10)).met());
    }

    @Test
    void anExcessCheckComparesDifferences() {
        Page.Verdict v = Checks.judge(check(null, 1.0, null, null, "nginx"), cells(2.5, 2.0, 9.0, 3.0));
        assertEquals("not met (1/2)", v.outcome());
        assertEquals("cell 1 (+6)", v.misses());
    }

    @Test
    void aBoundNeedsNoReferenceAndNothingMeasuredIsNotMet() {
        assertTrue(Checks.judge(check(null, null, 20.0, null, null), cells(10, 99, 12, 99)).met());
        assertFalse(Checks.judge(check(null, null, 20.0, null, null), List.of()).met(), "no cell judged: not met");
    }

    @Test
    void aTargetThatRanWithoutAFigureIsAMissNotARowLeftOut() {
        List<com.fasterxml.jackson.databind.JsonNode> rows = cells(10, 10);
        ObjectNode unmeasured = Fixtures.row("kodiak", "cell 9", 1); // p99_ms null: wrk could not finish
        rows.add(unmeasured);
        rows.add(Fixtures.row("nginx", "cell 9", 1).put("p99_ms", 10.0));
        Page.Verdict v = Checks.judge(check(1.10, null, null, null, "nginx"), rows);
        assertEquals("not met (1/2)", v.outcome());
        assertEquals("cell 9 (not measured)", v.misses());
    }

    @Test
    void aShareOfTheJudgedRowsIsForPartialRuns() {
        Spec.Check share = new Spec.Check("c", null, null, "p99_ms", "kodiak", "nginx", 1.10, null, null, null, null, null, 0.8);
        assertTrue(Checks.judge(share, cells(10, 10, 10, 10, 10, 10, 10, 10, 12, 10)).met(), "4 of 5 pass: 0.8");
        assertFalse(Checks.judge(share, cells(10, 10, 10, 10, 10, 10, 12, 10, 12, 10)).met(), "3 of 5");
    }

    @Test
    void ratiosArePairedRoundByRound() {
        // The machine slowed down in round 2 for both: each round's ratio is 1.0, the medians' would be too,
        // but the unpaired range would be [0.5, 2.0].
        List<com.fasterxml.jackson.databind.JsonNode> rows = new ArrayList<>();
        rows.add(Fixtures.row("kodiak", "c", 1).put("p99_ms", 10.0));
        rows.add(Fixtures.row("nginx", "c", 1).put("p99_ms", 10.0));
        rows.add(Fixtures.row("kodiak", "c", 2).put("p99_ms", 20.0));
        rows.add(Fixtures.row("nginx", "c", 2).put("p99_ms", 20.0));
        Spread r = Ratios.of(List.of(rows.get(0), rows.get(2)), List.of(rows.get(1), rows.get(3)), "p99_ms");
        assertEquals(1.0, r.min());
        assertEquals(1.0, r.max());
    }
}
