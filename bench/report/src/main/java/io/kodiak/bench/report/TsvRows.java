package io.kodiak.bench.report;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A bench script's measurements as rows: a tab-separated file whose first line names the fields. The
 * scripts write what they measured as plain columns; typing them is done here, once: whole numbers,
 * decimals, true/false; empty, "-" and "null" are null; target and scenario stay text.
 */
final class TsvRows {

    private static final Pattern INTEGER = Pattern.compile("-?\\d{1,18}");
    private static final Pattern DECIMAL = Pattern.compile("-?\\d+\\.\\d+([eE][-+]?\\d+)?");
    private static final List<String> TEXT_FIELDS = List.of("target", "scenario");

    private TsvRows() {
    }

    static List<ObjectNode> read(Path tsv) throws IOException {
        List<String> lines = Files.readAllLines(tsv, StandardCharsets.UTF_8);
        if (lines.isEmpty()) {
            throw new IOException(tsv + " is empty: its first line should name the fields");
        }
        String[] fields = lines.get(0).split("\t", -1);
        List<ObjectNode> rows = new ArrayList<>();
        for (int n = 1; n < lines.size(); n++) {
            String line = lines.get(n);
            if (line.isBlank()) {
                continue;
            }
            String[] values = line.split("\t", -1);
            if (values.length != fields.length) {
                throw new IOException(tsv + " line " + (n + 1) + " has " + values.length + " fields, the header names " + fields.length);
            }
            ObjectNode row = JsonNodeFactory.instance.objectNode();
            for (int i = 0; i < fields.length; i++) {
                put(row, fields[i], values[i]);
            }
            rows.add(row);
        }
        return rows;
    }

    static void put(ObjectNode row, String field, String value) {
        if (TEXT_FIELDS.contains(field)) {
            row.put(field, value);
        } else if (value.isEmpty() || value.equals("-") || value.equals("null")) {
            row.putNull(field);
        } else if (INTEGER.matcher(value).matches()) {
            row.put(field, Long.parseLong(value));
        } else if (DECIMAL.matcher(value).matches()) {
            row.put(field, Double.parseDouble(value));
        } else if (value.equals("true") || value.equals("false")) {
            row.put(field, Boolean.parseBoolean(value));
        } else {
            row.put(field, value);
        }
    }
}
