package io.kodiak.bench.report;

import java.util.List;

/**
 * What a report shows, worked out once: both report.md and report.html are written from this (the page
 * embeds it as JSON and draws it), so the two cannot disagree.
 */
record Page(String title, Headline headline, List<Fact> facts, List<String> notes, List<Verdict> checks,
            List<Table> tables, String command) {

    /** What the page opens with, before the run's description: one sentence per target, one chart. */
    record Headline(String reference, List<String> sentences, Chart chart) {
    }

    /** A line of the run's description: the command, the machine, the versions. */
    record Fact(String name, String value) {
    }

    /**
     * A value as shown, with what stands behind it: the median (or total) and its min-max over
     * {@code runs} repetitions, or only text; {@code link} a relative path to open.
     */
    record Cell(String text, Double value, Double min, Double max, Integer runs, boolean sum, String link) {
        static Cell text(String text) {
            return new Cell(text, null, null, null, null, false, null);
        }

        static Cell link(String text, String path) {
            return new Cell(text, null, null, null, null, false, path);
        }

        static Cell of(Spread s, Integer digits) {
            return new Cell(Numbers.range(s, digits), finite(s.value()), finite(s.min()), finite(s.max()), s.runs(), false, null);
        }

        /** A sum over the runs: shown alone (a per-run range beside a sum reads as the sum's), each run on hover. */
        static Cell total(Spread s, Integer digits) {
            return new Cell(Numbers.format(s.value(), digits), finite(s.value()), finite(s.min()), finite(s.max()), s.runs(), true, null);
        }

        static final Cell EMPTY = text("");

        private static Double finite(double v) {
            return Double.isFinite(v) ? v : null;
        }
    }

    /** A table whose first {@code keys} columns name the row; the others are measured. */
    record Table(String title, String text, int keys, List<String> header, List<List<Cell>> rows, List<Chart> charts) {
    }

    /** Grouped bars: one bar per label and dataset; a null point is a gap (nothing measured). */
    record Chart(String title, String scale, List<String> labels, List<Dataset> datasets) {
    }

    record Dataset(String label, List<Cell> points) {
    }

    /** A check against a target: met or not, in how many table rows, and where it falls short. */
    record Verdict(String title, boolean met, int passed, int judged, String misses) {
        String outcome() {
            return (met ? "met" : "not met") + " (" + passed + "/" + judged + ")";
        }
    }
}
