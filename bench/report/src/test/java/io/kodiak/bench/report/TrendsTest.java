package io.kodiak.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The soak's figures over time: a slope in % of the mean per hour, and the largest change from a sample. */
class TrendsTest {

    private static List<Trends.Point> line(double from, double to, double step, double y0, double perMinute) {
        List<Trends.Point> points = new ArrayList<>();
        for (double x = from; x <= to + 1e-9; x += step) {
            points.add(new Trends.Point(x, y0 + perMinute * x));
        }
        return points;
    }

    @Test
    void aFlatSeriesHasNoSlope() {
        assertEquals(0.0, Trends.slope(line(0, 60, 1, 100, 0), 50).value(), 1e-9);
    }

    @Test
    void aLinearGrowthIsItsRatePerHourOverTheMeanOfTheWindow() {
        // y = 100 + 0.01 x: over minutes 10-60 the mean is 100.35, the growth 0.6 per hour.
        Trends.Figure f = Trends.slope(line(0, 60, 1, 100, 0.01), 50);
        assertEquals(0.6 / 100.35 * 100, f.value(), 1e-6);
        assertTrue(f.window().contains("minutes 10.0–60.0") && f.window().contains("the last 50"), f.window());
    }

    @Test
    void onlyTheLastFiftyMinutesCount() {
        // A warm-up that climbs for ten minutes, then flat: the fit leaves the climb out.
        List<Trends.Point> points = new ArrayList<>(line(0, 9, 1, 50, 5));
        points.addAll(line(10, 60, 1, 100, 0));
        assertEquals(0.0, Trends.slope(points, 50).value(), 1e-9);
    }

    @Test
    void aShortRunIsFittedWholeAndSaysSo() {
        Trends.Figure f = Trends.slope(line(0, 2, 0.25, 100, 1), 50);
        assertEquals(60.0 / 101 * 100, f.value(), 1e-6);
        assertTrue(f.window().contains("the whole run, shorter than 50"), f.window());
    }

    @Test
    void oneSampleOrAZeroMeanGivesNoSlope() {
        assertNull(Trends.slope(List.of(new Trends.Point(0, 5)), 50).value());
        assertNull(Trends.slope(List.of(new Trends.Point(0, -1), new Trends.Point(1, 1)), 50).value());
        assertEquals(0.0, Trends.slope(List.of(new Trends.Point(0, 0), new Trends.Point(1, 0)), 50).value());
    }

    @Test
    void theChangeIsTheLargestDepartureFromTheValueAtMinuteTen() {
        List<Trends.Point> points = List.of(new Trends.Point(0, 50), new Trends.Point(10, 200), new Trends.Point(20, 230),
                new Trends.Point(30, 190));
        Trends.Figure f = Trends.changeFrom(points, 10);
        assertEquals(15.0, f.value(), 1e-9);
        assertTrue(f.window().startsWith("from minute 10.0"), f.window());
    }

    @Test
    void aRunEndingBeforeMinuteTenComparesWithItsMiddle() {
        List<Trends.Point> points = line(0, 2, 0.5, 100, 10);
        Trends.Figure f = Trends.changeFrom(points, 10);
        assertEquals(10.0 / 110 * 100, f.value(), 1e-9);
        assertTrue(f.window().contains("the run's middle"), f.window());
    }

    @Test
    void theFiguresGoIntoTheRowsNamedAndTheSeriesComesFromTheOthers() throws Exception {
        JsonNode trends = JsonMapper.builder().build().readTree("""
                [ { "field": "heap_slope", "of": "heap", "x": "minute", "from": { "scenario": "sample" },
                    "into": { "scenario": "all" }, "slope_over_last": 50 } ]""");
        List<ObjectNode> rows = new ArrayList<>();
        for (int m = 0; m <= 60; m += 10) {
            rows.add(JsonNodeFactory.instance.objectNode().put("scenario", "sample").put("minute", m).put("heap", 40.0));
        }
        ObjectNode all = JsonNodeFactory.instance.objectNode().put("scenario", "all");
        rows.add(all);
        Trends.apply(trends, rows);
        assertEquals(0.0, all.get("heap_slope").asDouble(), 1e-9);
        assertTrue(all.get("heap_slope_window").asText().contains("6 samples"), all.toString());
        assertNull(rows.get(0).get("heap_slope"));
    }
}
