package io.kodiak.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One target's figure over another's, as tables, checks and compare all state it. Measured side by side,
 * a repetition is one round in which both ran under the same load on the machine: the ratio is taken
 * round by round and its median and min-max reported, so drift between rounds cancels out of it. Rows
 * without repetitions in common fall back to the ratio of medians, with the widest range the runs allow.
 */
final class Ratios {

    private Ratios() {
    }

    /** Null when either side has no number. */
    static Spread of(List<JsonNode> rows, List<JsonNode> reference, String field) {
        Map<String, Double> mine = byRepetition(rows, field);
        Map<String, Double> theirs = byRepetition(reference, field);
        List<Double> paired = new ArrayList<>();
        for (Map.Entry<String, Double> e : mine.entrySet()) {
            Double other = theirs.get(e.getKey());
            if (other != null && other != 0) {
                paired.add(e.getValue() / other);
            }
        }
        if (!paired.isEmpty()) {
            return Spread.median(paired);
        }
        List<Double> a = Rows.numbers(rows, field);
        List<Double> b = Rows.numbers(reference, field);
        return a.isEmpty() || b.isEmpty() ? null : Spread.median(a).over(Spread.median(b));
    }

    /**
     * rows' figure minus the reference's, paired round by round as {@link #of} pairs ratios (the cost a variant
     * adds, measured side by side); without repetitions in common, the difference of the medians. Null when
     * either side has no number.
     */
    static Spread difference(List<JsonNode> rows, List<JsonNode> reference, String field) {
        Map<String, Double> mine = byRepetition(rows, field);
        Map<String, Double> theirs = byRepetition(reference, field);
        List<Double> paired = new ArrayList<>();
        for (Map.Entry<String, Double> e : mine.entrySet()) {
            Double other = theirs.get(e.getKey());
            if (other != null) {
                paired.add(e.getValue() - other);
            }
        }
        if (!paired.isEmpty()) {
            return Spread.median(paired);
        }
        List<Double> a = Rows.numbers(rows, field);
        List<Double> b = Rows.numbers(reference, field);
        if (a.isEmpty() || b.isEmpty()) {
            return null;
        }
        Spread x = Spread.median(a);
        Spread y = Spread.median(b);
        return new Spread(x.value() - y.value(), x.min() - y.max(), x.max() - y.min(), Math.min(x.runs(), y.runs()));
    }

    /** A side's value per repetition, when each repetition has exactly one number (else none: no pairing). */
    private static Map<String, Double> byRepetition(List<JsonNode> rows, String field) {
        Map<String, Double> values = new LinkedHashMap<>();
        for (JsonNode row : rows) {
            JsonNode rep = row.get("repetition");
            JsonNode v = row.get(field);
            if (rep == null || !rep.isIntegralNumber() || v == null || !v.isNumber()) {
                continue;
            }
            if (values.put(rep.asText(), v.asDouble()) != null) {
                return Map.of(); // two rows for one repetition: not a side-by-side pairing
            }
        }
        return values;
    }
}
