package io.kodiak.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A bench's measurements as JSON lines (FILE.jsonl): one object per line, each value under its field's
 * name. For benches whose rows are written by a program rather than assembled column by column in a
 * shell script: a field cannot land in its neighbour's column, and text (a failure's description) needs
 * no escaping of tabs. The values must already be typed (numbers, text, true/false, null); target and
 * scenario must be text, as in a TSV.
 */
final class JsonRows {

    private JsonRows() {
    }

    static boolean handles(Path file) {
        return file.getFileName().toString().endsWith(".jsonl");
    }

    static List<ObjectNode> read(Path jsonl) throws IOException {
        List<String> lines = Files.readAllLines(jsonl, StandardCharsets.UTF_8);
        List<ObjectNode> rows = new ArrayList<>();
        for (int n = 0; n < lines.size(); n++) {
            String line = lines.get(n);
            if (line.isBlank()) {
                continue;
            }
            JsonNode node;
            try {
                node = ResultsFile.JSON.readTree(line);
            } catch (IOException e) {
                throw new IOException(jsonl + " line " + (n + 1) + " is not JSON: " + e.getMessage(), e);
            }
            if (!(node instanceof ObjectNode row)) {
                throw new IOException(jsonl + " line " + (n + 1) + " is not a JSON object");
            }
            for (String text : List.of("target", "scenario")) {
                if (row.has(text) && !row.get(text).isTextual()) {
                    throw new IOException(jsonl + " line " + (n + 1) + ": " + text + " must be text");
                }
            }
            rows.add(row);
        }
        return rows;
    }
}
