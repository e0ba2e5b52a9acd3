package io.kodiak.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** Selecting and grouping a results file's rows: by a filter, by the fields that make a table row. */
final class Rows {

    private Rows() {
    }

    static List<JsonNode> where(List<JsonNode> rows, Map<String, Object> where) {
        if (where == null || where.isEmpty()) {
            return rows;
        }
        List<JsonNode> kept = new ArrayList<>();
        for (JsonNode row : rows) {
            boolean all = true;
            for (Map.Entry<String, Object> e : where.entrySet()) {
                all &= matches(row.get(e.getKey()), e.getValue());
            }
            if (all) {
                kept.add(row);
            }
        }
        return kept;
    }

    private static boolean matches(JsonNode value, Object wanted) {
        if (value == null || value.isNull()) {
            return false;
        }
        if (wanted instanceof Number n) {
            return value.isNumber() && value.asDouble() == n.doubleValue();
        }
        if (wanted instanceof Boolean b) {
            return value.isBoolean() && value.asBoolean() == b;
        }
        return value.asText().equals(String.valueOf(wanted));
    }

    /** The text of a field as shown and grouped on ("" when absent). */
    static String text(JsonNode row, String field) {
        JsonNode v = row.get(field);
        return v == null || v.isNull() ? "" : v.asText();
    }

    /** The rows grouped by the values of {@code fields}, groups in the order they first appear. */
    static Map<List<String>, List<JsonNode>> groupBy(List<JsonNode> rows, List<String> fields) {
        Map<List<String>, List<JsonNode>> groups = new LinkedHashMap<>();
        for (JsonNode row : rows) {
            List<String> key = fields.stream().map(f -> text(row, f)).toList();
            groups.computeIfAbsent(key, k -> new ArrayList<>()).add(row);
        }
        return groups;
    }

    /** The distinct values of a field, in the order they first appear. */
    static List<String> values(List<JsonNode> rows, String field) {
        return rows.stream().map(r -> text(r, field)).distinct().filter(v -> !v.isEmpty()).toList();
    }

    static List<JsonNode> withValue(List<JsonNode> rows, String field, String value) {
        return field == null ? rows : rows.stream().filter(r -> Objects.equals(text(r, field), value)).toList();
    }

    /** The numeric values of a field over some rows (nulls and text skipped). */
    static List<Double> numbers(List<JsonNode> rows, String field) {
        List<Double> values = new ArrayList<>();
        for (JsonNode row : rows) {
            JsonNode v = row.get(field);
            if (v != null && v.isNumber()) {
                values.add(v.asDouble());
            }
        }
        return values;
    }

    static String label(List<String> key) {
        return String.join(" × ", key);
    }
}
