package io.kodiak.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Reading and writing results.json, checked against bench/results.schema.json (a copy is in the jar). */
final class ResultsFile {

    static final ObjectMapper JSON = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

    private static final JsonSchema SCHEMA = load();

    private ResultsFile() {
    }

    private static JsonSchema load() {
        try (InputStream in = ResultsFile.class.getClassLoader().getResourceAsStream("results.schema.json")) {
            // Formats (the times' date-time) are only annotations in draft 2020-12 unless asserted.
            SchemaValidatorsConfig config = SchemaValidatorsConfig.builder().formatAssertionsEnabled(true).build();
            return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(JSON.readTree(in), config);
        } catch (IOException e) {
            throw new IllegalStateException("the results schema is not readable from the jar", e);
        }
    }

    /** What is wrong with a results document, one line each; empty when it is valid. */
    static List<String> problems(JsonNode results) {
        return SCHEMA.validate(results).stream().map(ValidationMessage::getMessage).sorted().toList();
    }

    /** Reads a results file, refusing one the schema does not accept (naming the file and what is wrong). */
    static JsonNode read(Path file) throws IOException {
        JsonNode results = JSON.readTree(file.toFile());
        List<String> problems = problems(results);
        if (!problems.isEmpty()) {
            throw new InvalidResults(file + " does not follow bench/results.schema.json:\n  " + String.join("\n  ", problems));
        }
        return results;
    }

    static void write(JsonNode results, Path file) throws IOException {
        List<String> problems = problems(results);
        if (!problems.isEmpty()) {
            throw new InvalidResults("refusing to write " + file + ", it would not follow bench/results.schema.json:\n  "
                    + String.join("\n  ", problems));
        }
        Files.createDirectories(file.toAbsolutePath().getParent());
        JSON.writeValue(file.toFile(), results);
    }

    /** A results document the schema refuses. */
    static final class InvalidResults extends IOException {
        InvalidResults(String message) {
            super(message);
        }
    }
}
