package io.kodiak.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Gatling collector on the bench's fixtures, real Gatling 3.12.0 outputs (bench/gatling/testdata):
 * an all-OK nginx run and a Kodiak run whose every request was refused, with its simulation.log.
 */
class GatlingRunsTest {

    /** Surefire runs in the module's directory. */
    private static final Path TESTDATA = Path.of("../gatling/testdata");

    @TempDir
    Path dir;

    @Test
    void anAllOkRunGivesGatlingsOwnFigures() throws IOException {
        Map<String, Object> nginx = rows("nginx\tnginx (9501)\t0\tok\n").get(0);
        assertEquals("nginx", nginx.get("target"));
        assertEquals("nginx (9501)", nginx.get("label"));
        assertEquals("quick", nginx.get("scenario"));
        assertEquals("this run", nginx.get("source"));
        assertEquals(0, nginx.get("exit_code"));
        assertEquals(1290L, nginx.get("requests"));
        assertEquals(1290L, nginx.get("ok"));
        assertEquals(0L, nginx.get("ko"));
        assertEquals(80.625, nginx.get("rps"));
        assertEquals(544.0, nginx.get("p50_ms"));
        assertEquals(544.0, nginx.get("p75_ms"));
        assertEquals(548.0, nginx.get("p95_ms"));
        assertEquals(549.0, nginx.get("p99_ms"));
        assertEquals(542.0, nginx.get("mean_ms"));
        assertEquals(501.0, nginx.get("min_ms"));
        assertEquals(597.0, nginx.get("max_ms"));
        assertEquals("ok/nginxsimulation-20261122134641000/index.html", nginx.get("gatling_report"));
        assertNull(nginx.get("failure"));
    }

    @Test
    void aFailedRunSaysWhyFromItsSimulationLog() throws IOException {
        Map<String, Object> kodiak = rows("kodiak\tKodiak (9401)\t1\tko\n").get(0);
        assertEquals(69L, kodiak.get("requests"));
        assertEquals(0L, kodiak.get("ok"));
        assertEquals(69L, kodiak.get("ko"));
        assertEquals(17.25, kodiak.get("rps"));
        assertEquals(1.0, kodiak.get("p50_ms"));
        assertEquals(57.0, kodiak.get("p99_ms"));
        assertEquals("j.n.ConnectException: finishConnect(..) failed: Connection refused (69×)", kodiak.get("failure"));
    }

    @Test
    void aFailedRunWithoutItsLogStillCountsAsFailed() throws IOException {
        copyFixtures();
        try (Stream<Path> logs = Files.walk(dir.resolve("ko"))) {
            logs.filter(p -> p.endsWith("simulation.log")).forEach(GatlingRunsTest::delete);
        }
        Map<String, Object> kodiak = GatlingRuns.rows(manifest("kodiak\tKodiak (9401)\t1\tko\n"), "quick").get(0);
        assertEquals(69L, kodiak.get("ko"));
        assertEquals("failed requests: see the Gatling report", kodiak.get("failure"));
    }

    @Test
    void aRunWithoutResultsKeepsItsRowAndSaysWhy() throws IOException {
        List<Map<String, Object>> rows = rows("mule-http\tMule new HTTP (9301)\t125\tmissing\tmule is not available yet\n"
                + "haproxy\tHAProxy (9601)\t124\talso-missing\n");
        assertEquals("mule is not available yet", rows.get(0).get("failure"));
        assertNull(rows.get(0).get("requests"));
        assertNull(rows.get(0).get("gatling_report"));
        assertEquals("no Gatling results (run exited 124; see logs/gatling-haproxy.log)", rows.get(1).get("failure"));
        assertEquals(124, rows.get(1).get("exit_code"));
    }

    @Test
    void theNewestRunOfAFolderCounts() throws IOException {
        copyFixtures();
        // An older run beside the real one, as a folder reused by hand would hold.
        Path older = dir.resolve("ok/nginxsimulation-20200101000000000/js");
        Files.createDirectories(older);
        Files.copy(TESTDATA.resolve("ko/kodiaksimulation-20261124164217661/js/global_stats.json"), older.resolve("global_stats.json"));
        Map<String, Object> nginx = GatlingRuns.rows(manifest("nginx\tnginx (9501)\t0\tok\n"), "quick").get(0);
        assertEquals(1290L, nginx.get("requests"));
    }

    @Test
    void aGlobalStatsFileMissingAFigureIsRefused() throws IOException {
        Path run = dir.resolve("t/run/js");
        Files.createDirectories(run);
        ObjectNode stats = (ObjectNode) ResultsFile.JSON.readTree(
                TESTDATA.resolve("ok/nginxsimulation-20261122134641000/js/global_stats.json").toFile());
        stats.remove("percentiles4");
        ResultsFile.JSON.writeValue(run.resolve("global_stats.json").toFile(), stats);
        IOException e = assertThrows(IOException.class, () -> GatlingRuns.rows(manifest("x\tx\t0\tt\n"), "quick"));
        assertTrue(e.getMessage().contains("percentiles4"), e.getMessage());
    }

    @Test
    void aMalformedManifestLineIsNamed() throws IOException {
        IOException e = assertThrows(IOException.class, () -> GatlingRuns.rows(manifest("nginx\tnginx\t0\tok\n\nnginx\t0\n"), "quick"));
        assertTrue(e.getMessage().contains("line 3"), e.getMessage());
        e = assertThrows(IOException.class, () -> GatlingRuns.rows(manifest("nginx\tnginx\tzero\tok\n"), "quick"));
        assertTrue(e.getMessage().contains("exit code"), e.getMessage());
    }

    @Test
    void theTsvReadsBackAsTheResultsCommandTypesIt() throws IOException {
        copyFixtures();
        Path tsv = dir.resolve("rows.tsv");
        GatlingRuns.writeTsv(manifest("nginx\tnginx (9501)\t0\tok\nkodiak\tKodiak (9401)\t1\tko\n"
                + "mule\tMule\t125\tmissing\tmule is not available yet\n"), "quick", tsv);
        List<ObjectNode> rows = TsvRows.read(tsv);
        assertEquals(3, rows.size());
        assertEquals(1290, rows.get(0).get("requests").asLong());
        assertTrue(rows.get(0).get("requests").isIntegralNumber());
        assertEquals(544, rows.get(0).get("p50_ms").asLong());
        assertTrue(rows.get(0).get("p50_ms").isIntegralNumber(), "whole milliseconds stay whole");
        assertEquals(80.625, rows.get(0).get("rps").asDouble());
        assertTrue(rows.get(0).get("failure").isNull());
        assertTrue(rows.get(1).get("failure").asText().endsWith("Connection refused (69×)"));
        assertTrue(rows.get(2).get("requests").isNull());
        assertEquals("mule is not available yet", rows.get(2).get("failure").asText());
    }

    @Test
    void aJsonLinesManifestIsReadByName() throws IOException {
        copyFixtures();
        Path manifest = dir.resolve("runs.jsonl");
        Files.writeString(manifest, """
                {"folder":"ok","exit_code":0,"target":"nginx","label":"nginx (9501)","note":""}
                {"target":"mule","label":"Mule","exit_code":125,"folder":"missing","note":"mule is not available yet"}
                """, StandardCharsets.UTF_8);
        List<Map<String, Object>> rows = GatlingRuns.rows(manifest, "quick");
        assertEquals(1290L, rows.get(0).get("requests"));
        assertEquals("nginx (9501)", rows.get(0).get("label"));
        assertEquals(125, rows.get(1).get("exit_code"));
        assertEquals("mule is not available yet", rows.get(1).get("failure"));
        Files.writeString(manifest, "{\"target\":\"nginx\",\"label\":\"nginx\",\"exit_code\":0}\n", StandardCharsets.UTF_8);
        IOException e = assertThrows(IOException.class, () -> GatlingRuns.rows(manifest, "quick"));
        assertTrue(e.getMessage().contains("no folder"), e.getMessage());
    }

    @Test
    void aCellNeitherEndsItsLineNorItsCellAndWholeNumbersStayWhole() {
        assertEquals("a b c", GatlingRuns.cell("a\tb\r\nc"));
        assertEquals("544", GatlingRuns.cell(544.0));
        assertEquals("80.625", GatlingRuns.cell(80.625));
        assertEquals("", GatlingRuns.cell(null));
    }

    private List<Map<String, Object>> rows(String manifest) throws IOException {
        copyFixtures();
        return GatlingRuns.rows(manifest(manifest), "quick");
    }

    private Path manifest(String lines) throws IOException {
        Path manifest = dir.resolve("runs.tsv");
        Files.writeString(manifest, lines, StandardCharsets.UTF_8);
        return manifest;
    }

    private void copyFixtures() throws IOException {
        if (Files.exists(dir.resolve("ok"))) {
            return;
        }
        try (Stream<Path> files = Files.walk(TESTDATA)) {
            for (Path p : files.toList()) {
                Path to = dir.resolve(TESTDATA.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(p, to);
                }
            }
        }
    }

    private static void delete(Path p) {
        try {
            Files.delete(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
