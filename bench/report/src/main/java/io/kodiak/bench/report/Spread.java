package io.kodiak.bench.report;

import java.util.Arrays;
import java.util.List;

/** The repetitions of one measurement: median (or total), min and max, and how many there were. */
record Spread(double value, double min, double max, int runs) {

    static Spread median(List<Double> values) {
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int n = sorted.length;
        double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
        return new Spread(median, sorted[0], sorted[n - 1], n);
    }

    /** For counts (failures, requests): their sum is what a reader wants, min-max still per run. */
    static Spread total(List<Double> values) {
        Spread s = median(values);
        return new Spread(Arrays.stream(values.stream().mapToDouble(Double::doubleValue).toArray()).sum(),
                s.min, s.max, s.runs);
    }

    boolean varies() {
        return runs > 1 && min != max;
    }

    /** this / other, with the widest spread the runs allow: [min/other.max, max/other.min]. */
    Spread over(Spread other) {
        // A zero below the line is an unbounded quotient, not a missing one.
        return new Spread(value / other.value,
                other.max == 0 ? Double.POSITIVE_INFINITY : min / other.max,
                other.min == 0 ? Double.POSITIVE_INFINITY : max / other.min,
                Math.min(runs, other.runs));
    }
}
