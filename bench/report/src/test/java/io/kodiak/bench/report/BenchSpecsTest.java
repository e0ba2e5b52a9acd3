package io.kodiak.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every bench's report spec (bench/NAME/report.json) against a fixture of the measurements its script
 * writes (src/test/resources/fixtures/NAME.tsv or NAME.jsonl, or NAME-*.tsv when it writes several): the results are
 * written as the script's bench_report writes them (schema-validated), and the page they make is worth
 * reading, that is, a spec names no field, target or value the rows do not have. A typo there would
 * otherwise show up as an empty column or a check judging nothing, only after a bench had run for minutes.
 */
class BenchSpecsTest {

    private static final Path BENCH = Path.of("..").toAbsolutePath().normalize();
    private static final Path FIXTURES = Path.of("src/test/resources/fixtures");

    static Stream<String> benches() throws IOException {
        try (Stream<Path> dirs = Files.list(BENCH)) {
            List<String> names = dirs.filter(d -> Files.isRegularFile(d.resolve("report.json")))
                    .map(d -> d.getFileName().toString()).sorted().toList();
            assertFalse(names.isEmpty(), "no bench/*/report.json under " + BENCH);
            return names.stream();
        }
    }

    @ParameterizedTest
    @MethodSource("benches")
    void itsFixtureMakesAValidResultsFileAndAPageWithEveryColumnAndCheckFilled(String bench, @TempDir Path dir) throws IOException {
        Path results = dir.resolve("results.json");
        List<String> args = new ArrayList<>(List.of("results", "--bench", bench, "--spec", BENCH.resolve(bench).resolve("report.json").toString(),
                "--out", results.toString(), "--command", "bin/bench.sh " + bench + " (fixture)", "--started", "2026-11-24T00:00:00Z",
                "--repo", dir.toString(), "--param", "fixture=true"));
        for (Path tsv : fixtures(bench)) {
            args.addAll(List.of("--rows", tsv.toString()));
        }
        assertEquals(0, Main.run(args.toArray(String[]::new)));

        JsonNode written = ResultsFile.read(results); // refuses a file the schema does not accept
        Spec spec = Spec.of(written.get("report"));
        List<JsonNode> rows = new ArrayList<>();
        written.get("rows").forEach(rows::add);
        for (Spec.Section section : spec.sections()) {
            List<JsonNode> in = Rows.where(rows, section.where());
            assertFalse(in.isEmpty(), bench + ", section '" + section.title() + "': no row matches " + section.where());
            for (String key : section.rows()) {
                assertFalse(Rows.values(in, key).isEmpty(), bench + ", section '" + section.title() + "': no row has " + key);
            }
            for (Spec.Column column : section.columns()) {
                assertFalse(Rows.values(in, column.field()).isEmpty(),
                        bench + ", section '" + section.title() + "': no row has a value for column " + column.field());
            }
        }
        // The page leaves out checks a run did not measure; the fixture measures everything, so each is judged.
        for (Spec.Check check : spec.checks()) {
            assertTrue(Checks.judge(check, rows).judged() > 0, bench + ", check '" + check.title()
                    + "' judged no row: its field, target, reference or where names nothing the rows have");
        }
        Page page = Layout.of(written);
        assertEquals(spec.sections().size(), page.tables().size(), bench + ": every section has rows in the fixture");
        assertTrue(Markdown.of(page).contains("# " + spec.title()), bench + ": report.md");
        String html = Html.of(page);
        assertFalse(html.contains("@@PAGE@@") || html.contains("@@CHART_JS@@"), bench + ": report.html has the page and the chart library inlined");
    }

    /** NAME.tsv and NAME-*.tsv: a bench whose script writes several TSVs (their fields differ) has one fixture per TSV. */
    private static List<Path> fixtures(String bench) throws IOException {
        try (Stream<Path> files = Files.list(FIXTURES)) {
            List<Path> found = files.filter(f -> {
                String name = f.getFileName().toString();
                return name.equals(bench + ".tsv") || name.equals(bench + ".jsonl")
                        || name.startsWith(bench + "-") && (name.endsWith(".tsv") || name.endsWith(".jsonl"));
            }).sorted().toList();
            assertFalse(found.isEmpty(), "bench/" + bench + "/report.json has no fixture: add " + FIXTURES.resolve(bench + ".tsv")
                    + ", rows as bench/" + bench + "/run.sh writes them");
            return found;
        }
    }
}
