package io.kodiak.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import io.kodiak.bench.report.Spec.Check;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Judges a check per table row, on medians over the repetitions (as the tables show them). */
final class Checks {

    private Checks() {
    }

    static Page.Verdict judge(Check check, List<JsonNode> all) {
        List<JsonNode> rows = Rows.where(all, check.where());
        int judged = 0;
        int passed = 0;
        List<String> misses = new ArrayList<>();
        for (Map.Entry<List<String>, List<JsonNode>> group : Rows.groupBy(rows, check.rows()).entrySet()) {
            List<Double> mine = Rows.numbers(Rows.withValue(group.getValue(), "target", check.target()), check.field());
            if (mine.isEmpty()) {
                continue;
            }
            double value = Spread.median(mine).value();
            Double shown = value;
            boolean ok = within(value, check.max(), check.min());
            if (check.reference() != null) {
                List<Double> theirs = Rows.numbers(Rows.withValue(group.getValue(), "target", check.reference()), check.field());
                if (theirs.isEmpty()) {
                    continue;
                }
                double reference = Spread.median(theirs).value();
                double ratio = value / reference;
                double excess = value - reference;
                ok &= within(ratio, check.maxRatio(), check.minRatio());
                ok &= check.maxExcess() == null || excess <= check.maxExcess();
                shown = check.maxExcess() != null ? excess : ratio;
            }
            judged++;
            if (ok) {
                passed++;
            } else {
                String sign = check.maxExcess() != null && shown >= 0 ? "+" : "";
                misses.add(Rows.label(group.getKey()) + " (" + sign + Numbers.format(shown, null) + ")");
            }
        }
        int needed = check.atLeast() == null ? judged : check.atLeast();
        boolean met = judged > 0 && passed >= needed;
        return new Page.Verdict(check.title(), met, passed, judged, String.join(", ", misses));
    }

    private static boolean within(double v, Double max, Double min) {
        return (max == null || v <= max) && (min == null || v >= min);
    }
}
