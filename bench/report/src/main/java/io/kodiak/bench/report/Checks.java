package io.kodiak.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import io.kodiak.bench.report.Spec.Check;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Judges a check per table row on what the tables show: the target's median (or its ratio to the
 * reference, round by round: {@link Ratios}). A row where the target ran but its figure is missing (a
 * server never taken out, a run wrk could not finish) is a miss, not a row left out: a failure must not
 * hide behind a null. A row where the target (or the reference) did not run at all is not judged.
 */
final class Checks {

    private Checks() {
    }

    static Page.Verdict judge(Check check, List<JsonNode> all) {
        List<JsonNode> rows = Rows.where(all, check.where());
        int judged = 0;
        int passed = 0;
        List<String> misses = new ArrayList<>();
        for (Map.Entry<List<String>, List<JsonNode>> group : Rows.groupBy(rows, check.rows()).entrySet()) {
            List<JsonNode> target = Rows.withValue(group.getValue(), "target", check.target());
            List<JsonNode> reference = check.reference() == null ? List.of()
                    : Rows.withValue(group.getValue(), "target", check.reference());
            if (target.isEmpty() || check.reference() != null && reference.isEmpty()) {
                continue;
            }
            judged++;
            String miss = miss(check, target, reference);
            if (miss == null) {
                passed++;
            } else {
                misses.add(Rows.label(group.getKey()) + " (" + miss + ")");
            }
        }
        int needed = check.atLeast() != null ? check.atLeast()
                : check.atLeastShare() != null ? (int) Math.ceil(check.atLeastShare() * judged) : judged;
        boolean met = judged > 0 && passed >= needed;
        return new Page.Verdict(check.title(), met, passed, judged, String.join(", ", misses));
    }

    /** Why one table row misses the check, or null when it passes. */
    private static String miss(Check check, List<JsonNode> target, List<JsonNode> reference) {
        List<Double> mine = Rows.numbers(target, check.field());
        if (mine.isEmpty()) {
            return "not measured";
        }
        double value = Spread.median(mine).value();
        if (!within(value, check.max(), check.min())) {
            return Numbers.format(value, null);
        }
        if (check.reference() == null) {
            return null;
        }
        List<Double> theirs = Rows.numbers(reference, check.field());
        if (theirs.isEmpty()) {
            return check.reference() + " not measured";
        }
        if (check.maxExcess() != null) {
            double excess = value - Spread.median(theirs).value();
            if (excess > check.maxExcess()) {
                return "+" + Numbers.format(excess, null);
            }
        }
        if (check.maxRatio() != null || check.minRatio() != null) {
            double ratio = Ratios.of(target, reference, check.field()).value();
            if (!within(ratio, check.maxRatio(), check.minRatio())) {
                return Numbers.format(ratio, 3); // 1.004 against a bound of 1.0 must not read as 1.00
            }
        }
        return null;
    }

    private static boolean within(double v, Double max, Double min) {
        return (max == null || v <= max) && (min == null || v >= min);
    }
}
