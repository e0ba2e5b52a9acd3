package io.kodiak.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResultsFileTest {

    private static final String SPEC = """
            {"title": "t", "sections": [{"title": "s", "columns": [{"field": "rps", "label": "req/s"}]}]}""";

    @Test
    void aCompleteDocumentIsValid() throws Exception {
        assertEquals(List.of(), ResultsFile.problems(Fixtures.results(SPEC, Fixtures.row("kodiak", "a", 1))));
    }

    @Test
    void everyCommonFieldIsRequiredEvenWhenNull() throws Exception {
        ObjectNode row = Fixtures.row("kodiak", "a", 1);
        row.remove("p95_ms");
        List<String> problems = ResultsFile.problems(Fixtures.results(SPEC, row));
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.get(0).contains("p95_ms"), problems.toString());
    }

    @Test
    void wrongTypesAndUnknownBenchesAreRefused() throws Exception {
        ObjectNode row = Fixtures.row("kodiak", "a", 1);
        row.put("rps", "fast");
        row.putObject("nested");
        ObjectNode results = Fixtures.results(SPEC, row);
        results.put("bench", "nonsense");
        assertEquals(3, ResultsFile.problems(results).size(), ResultsFile.problems(results).toString());
    }

    @Test
    void aReportBlockWithAnUnknownKeyIsRefused() throws Exception {
        ObjectNode results = Fixtures.results("""
                {"title": "t", "sections": [{"title": "s", "columns": [{"field": "rps", "label": "req/s", "colour": "red"}]}]}""",
                Fixtures.row("kodiak", "a", 1));
        assertTrue(ResultsFile.problems(results).stream().anyMatch(p -> p.contains("colour")), ResultsFile.problems(results).toString());
    }

    @Test
    void anInvalidDocumentIsNeitherWrittenNorRead(@TempDir Path dir) throws Exception {
        ObjectNode results = Fixtures.results(SPEC, Fixtures.row("kodiak", "a", 1));
        results.remove("meta");
        Path file = dir.resolve("results.json");
        assertThrows(ResultsFile.InvalidResults.class, () -> ResultsFile.write(results, file));
        assertTrue(Files.notExists(file));
        Files.writeString(file, results.toString());
        ResultsFile.InvalidResults e = assertThrows(ResultsFile.InvalidResults.class, () -> ResultsFile.read(file));
        assertTrue(e.getMessage().contains("meta"), e.getMessage());
    }

    @Test
    void aCheckWithoutABoundARatioWithoutAReferenceAndABadTimeAreRefused() throws Exception {
        ObjectNode noBound = Fixtures.results("""
                {"title": "t", "sections": [{"title": "s", "columns": [{"field": "rps", "label": "req/s"}]}],
                 "checks": [{"title": "c", "field": "rps", "target": "kodiak"}]}""", Fixtures.row("kodiak", "a", 1));
        assertTrue(ResultsFile.problems(noBound).stream().allMatch(p -> p.startsWith("/report/checks/0")) && !ResultsFile.problems(noBound).isEmpty(),
                "a check that bounds nothing is always met: " + ResultsFile.problems(noBound));
        ObjectNode ratioAlone = Fixtures.results("""
                {"title": "t", "sections": [{"title": "s", "columns": [{"field": "rps", "label": "req/s", "ratio": true}]}],
                 "checks": [{"title": "c", "field": "rps", "target": "kodiak", "max_ratio": 1.1}]}""", Fixtures.row("kodiak", "a", 1));
        assertEquals(2, ResultsFile.problems(ratioAlone).size(), "a ratio column and a ratio check, each without a reference: "
                + ResultsFile.problems(ratioAlone));
        ObjectNode badTime = Fixtures.results(SPEC, Fixtures.row("kodiak", "a", 1));
        ((ObjectNode) badTime.get("meta")).put("started", "yesterday");
        assertTrue(ResultsFile.problems(badTime).stream().anyMatch(p -> p.contains("started")), ResultsFile.problems(badTime).toString());
        ObjectNode noRows = Fixtures.results(SPEC);
        assertEquals(1, ResultsFile.problems(noRows).size(), "a run with no row: " + ResultsFile.problems(noRows));
    }
}
