package io.kodiak.bench.report;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * A results file's report block: how its rows become tables, charts and checks. Parsed with Jackson into
 * records; the schema (bench/results.schema.json) has already said what is allowed, so absent optional
 * fields are simply null here.
 */
record Spec(String title, List<String> notes, Spec.Lead verdict, List<Spec.Section> sections, List<Spec.Check> checks) {

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    /** Plain conversions (a trend's where blocks into maps). */
    static final ObjectMapper MAPPER_FOR_TRENDS = JsonMapper.builder().build();

    Spec {
        notes = notes == null ? List.of() : notes;
        checks = checks == null ? List.of() : checks;
    }

    static Spec of(JsonNode report) throws IOException {
        return MAPPER.treeToValue(report, Spec.class);
    }

    /** One table: rows keyed by {@code rows} fields, a column per metric (and per series value). */
    record Section(String title, String text, Map<String, Object> where, List<String> rows, JsonNode series,
                   String reference, Integer minSeries, List<Column> columns) {
        Section {
            rows = rows == null ? List.of("scenario") : rows;
        }

        /** Whether rows fill this section: some rows, and at least min_series values of its series field. */
        boolean filledBy(List<JsonNode> rows) {
            String field = seriesField();
            return !rows.isEmpty() && (minSeries == null || field == null || Rows.values(rows, field).size() >= minSeries);
        }

        /** The series field: {@code target} unless the section names another, or none (JSON null). */
        String seriesField() {
            if (series == null || series.isMissingNode()) {
                return "target";
            }
            return series.isNull() ? null : series.asText();
        }
    }

    record Column(String field, String label, Integer digits, boolean ratio, boolean difference, String chart,
                  boolean link, boolean total) {
    }

    /**
     * The page's opening verdict: each target against the reference, measure by measure, as the median over
     * the table rows ({@code rows}, e.g. every matrix cell) of its round-by-round ratio, in one sentence per
     * target and one chart.
     */
    record Lead(Map<String, Object> where, List<String> rows, String reference, List<Measure> measures) {
        Lead {
            rows = rows == null ? List.of("scenario") : rows;
        }
    }

    record Measure(String field, String label) {
    }

    /** A target judged per table row: target's value against the reference's, or against a bound. */
    record Check(String title, Map<String, Object> where, List<String> rows, String field, String target,
                 String reference, Double maxRatio, Double minRatio, Double maxExcess, Double max, Double min,
                 Integer atLeast, Double atLeastShare) {
        Check {
            rows = rows == null ? List.of("scenario") : rows;
        }
    }
}
