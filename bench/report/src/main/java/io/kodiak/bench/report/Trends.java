package io.kodiak.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The report block's trends: figures of a series sampled over time (a soak's heap, files, threads per
 * minute), which no per-row formula can compute. Each is written into the rows a check judges (the
 * run's summary row), with FIELD_window saying which span of the series it used, so a short run says
 * it fitted what there was.
 */
final class Trends {

    private Trends() {
    }

    record Point(double x, double y) {
    }

    /** One trend's figure and the span it used; value null when the series cannot give one. */
    record Figure(Double value, String window) {
    }

    static void apply(JsonNode trends, List<ObjectNode> rows) {
        if (trends == null) {
            return;
        }
        List<JsonNode> all = new ArrayList<>(rows);
        for (JsonNode t : trends) {
            String field = t.get("field").asText();
            List<Point> series = series(Rows.where(all, where(t.get("from"))), t.get("x").asText(), t.get("of").asText());
            Figure f = t.has("slope_over_last") ? slope(series, t.get("slope_over_last").asDouble())
                    : changeFrom(series, t.get("change_from").asDouble());
            for (JsonNode row : Rows.where(all, where(t.get("into")))) {
                ObjectNode r = (ObjectNode) row;
                if (f.value() == null) {
                    r.putNull(field);
                } else {
                    r.put(field, Math.round(f.value() * 1000) / 1000.0);
                }
                r.put(field + "_window", f.window());
            }
        }
    }

    private static Map<String, Object> where(JsonNode node) {
        return Spec.MAPPER_FOR_TRENDS.convertValue(node, Map.class);
    }

    /** The rows' (x, y) pairs where both are numbers, in order of x. */
    static List<Point> series(List<JsonNode> rows, String x, String y) {
        List<Point> points = new ArrayList<>();
        for (JsonNode row : rows) {
            JsonNode a = row.get(x);
            JsonNode b = row.get(y);
            if (a != null && a.isNumber() && b != null && b.isNumber()) {
                points.add(new Point(a.asDouble(), b.asDouble()));
            }
        }
        points.sort(Comparator.comparingDouble(Point::x));
        return points;
    }

    /**
     * The least-squares slope over the last {@code last} units of x (the whole series when it spans
     * less), in % of the mean of y per 60 units of x: per hour when x counts minutes.
     */
    static Figure slope(List<Point> series, double last) {
        if (series.size() < 2) {
            return new Figure(null, series.size() + " sample(s): no slope");
        }
        double end = series.get(series.size() - 1).x();
        double from = end - last;
        boolean whole = series.get(0).x() >= from;
        List<Point> used = series.stream().filter(p -> p.x() >= from).toList();
        double start = used.get(0).x();
        String window = String.format(Locale.ROOT, "minutes %.1f–%.1f, %d samples (%s)", start, end, used.size(),
                whole ? "the whole run, shorter than " + fmt(last) : "the last " + fmt(last));
        if (used.size() < 2 || end == start) {
            return new Figure(null, window);
        }
        double mx = used.stream().mapToDouble(Point::x).average().orElseThrow();
        double my = used.stream().mapToDouble(Point::y).average().orElseThrow();
        double sxy = 0;
        double sxx = 0;
        for (Point p : used) {
            sxy += (p.x() - mx) * (p.y() - my);
            sxx += (p.x() - mx) * (p.x() - mx);
        }
        double b = sxy / sxx;
        if (my == 0) {
            // A series at zero throughout is flat; one whose mean is zero otherwise has no relative slope.
            return new Figure(b == 0 ? 0.0 : null, window);
        }
        return new Figure(b * 60 / Math.abs(my) * 100, window);
    }

    /**
     * The largest departure, in %, of the samples after x0 from the value at x0: x0 the first sample at
     * or after {@code from}, or at or after the series' midpoint when it ends before {@code from}.
     */
    static Figure changeFrom(List<Point> series, double from) {
        if (series.size() < 2) {
            return new Figure(null, series.size() + " sample(s): nothing to compare");
        }
        double end = series.get(series.size() - 1).x();
        boolean short_ = end <= from;
        double at = short_ ? series.get(0).x() + (end - series.get(0).x()) / 2 : from;
        Point ref = series.stream().filter(p -> p.x() >= at).findFirst().orElseThrow();
        List<Point> after = series.stream().filter(p -> p.x() > ref.x()).toList();
        String window = String.format(Locale.ROOT, "from minute %.1f (%s) to %.1f, %d samples after it", ref.x(),
                short_ ? "the run's middle: it ends before minute " + fmt(from) : "minute " + fmt(from), end, after.size());
        if (after.isEmpty() || ref.y() == 0) {
            return new Figure(null, window);
        }
        double worst = 0;
        for (Point p : after) {
            worst = Math.max(worst, Math.abs(p.y() - ref.y()) / ref.y() * 100);
        }
        return new Figure(worst, window);
    }

    private static String fmt(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v);
    }
}
