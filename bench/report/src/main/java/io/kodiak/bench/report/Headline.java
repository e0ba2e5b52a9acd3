package io.kodiak.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import io.kodiak.bench.report.Page.Cell;
import io.kodiak.bench.report.Page.Chart;
import io.kodiak.bench.report.Page.Dataset;
import io.kodiak.bench.report.Spec.Lead;
import io.kodiak.bench.report.Spec.Measure;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The verdict a page opens with: for each target but the reference, each measure's ratio to the reference,
 * taken round by round in every table row both ran in ({@link Ratios}), then its median over those rows with
 * their range. One sentence per target ("kodiak: 0.82× nginx's req/s [0.75–0.90], 1.31× its CPU µs/req ...,
 * over 4 cells") and one chart of the same medians, a group of bars per target.
 */
final class Headline {

    private Headline() {
    }

    /** Null when the reference did not run (nothing to hold the targets against). */
    static Page.Headline of(Lead lead, List<JsonNode> all) {
        List<JsonNode> rows = Rows.where(all, lead.where());
        List<String> targets = Rows.values(rows, "target");
        if (!targets.contains(lead.reference())) {
            return null;
        }
        Map<List<String>, List<JsonNode>> groups = Rows.groupBy(rows, lead.rows());
        List<String> others = targets.stream().filter(t -> !t.equals(lead.reference())).toList();
        List<String> sentences = new ArrayList<>();
        List<List<Cell>> points = new ArrayList<>();
        lead.measures().forEach(m -> points.add(new ArrayList<>()));
        for (String target : others) {
            List<String> parts = new ArrayList<>();
            int cells = 0;
            for (int i = 0; i < lead.measures().size(); i++) {
                Measure m = lead.measures().get(i);
                List<Double> ratios = new ArrayList<>();
                for (List<JsonNode> members : groups.values()) {
                    Spread r = Ratios.of(Rows.withValue(members, "target", target),
                            Rows.withValue(members, "target", lead.reference()), m.field());
                    if (r != null && Double.isFinite(r.value())) {
                        ratios.add(r.value());
                    }
                }
                if (ratios.isEmpty()) {
                    points.get(i).add(null);
                    continue;
                }
                Spread s = Spread.median(ratios);
                cells = Math.max(cells, ratios.size());
                parts.add(Numbers.format(s.value(), 2) + "× " + (parts.isEmpty() ? lead.reference() + "'s " : "its ") + m.label()
                        + (s.varies() ? " [" + Numbers.format(s.min(), 2) + "–" + Numbers.format(s.max(), 2) + "]" : ""));
                points.get(i).add(Cell.of(s, 2));
            }
            sentences.add(parts.isEmpty()
                    ? target + ": nothing measured beside " + lead.reference()
                    : target + ": " + String.join(", ", parts) + ", over " + cells + (cells == 1 ? " cell" : " cells") + ".");
        }
        List<Dataset> datasets = new ArrayList<>();
        for (int i = 0; i < lead.measures().size(); i++) {
            datasets.add(new Dataset(lead.measures().get(i).label() + " × " + lead.reference() + "'s", points.get(i)));
        }
        Chart chart = new Chart("each target against " + lead.reference() + " (1 = the same)", "linear", others, datasets);
        return new Page.Headline(lead.reference(), sentences, chart);
    }
}
