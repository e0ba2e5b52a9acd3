package io.kodiak.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TsvRowsAndDerivationsTest {

    @Test
    void valuesAreTypedOnceAndTargetAndScenarioStayText(@TempDir Path dir) throws Exception {
        Path tsv = dir.resolve("runs.tsv");
        Files.writeString(tsv, "target\tscenario\trequests\tp99_ms\tnote\tkept\tmissing\n"
                + "kodiak\t80\t1200\t2.5\twarm\ttrue\t-\n");
        ObjectNode row = TsvRows.read(tsv).get(0);
        assertTrue(row.get("scenario").isTextual(), "a scenario named 80 is still a name");
        assertTrue(row.get("requests").isIntegralNumber());
        assertEquals(2.5, row.get("p99_ms").asDouble());
        assertEquals("warm", row.get("note").asText());
        assertTrue(row.get("kept").isBoolean());
        assertTrue(row.get("missing").isNull());
    }

    @Test
    void aShortLineIsRefusedWithItsNumber(@TempDir Path dir) throws Exception {
        Path tsv = dir.resolve("runs.tsv");
        Files.writeString(tsv, "target\tscenario\n" + "kodiak\n");
        IOException e = assertThrows(IOException.class, () -> TsvRows.read(tsv));
        assertTrue(e.getMessage().contains("line 2"), e.getMessage());
    }

    @Test
    void derivedFieldsUseEarlierOnesAndGiveNullWhereAnInputIsMissing() throws Exception {
        ObjectNode measured = Fixtures.row("kodiak", "a", 1);
        measured.put("ticks", 300);
        measured.put("hz", 100);
        measured.put("requests", 100_000);
        ObjectNode unmeasured = Fixtures.row("kodiak", "b", 1);
        unmeasured.put("hz", 100);
        unmeasured.put("requests", 0);
        unmeasured.put("ticks", 0);
        Derivations.apply(Fixtures.json("""
                [{"field": "cpu_s", "formula": "ticks / hz"},
                 {"field": "cpu_us_per_req", "formula": "cpu_s * 1000000 / requests", "digits": 2},
                 {"field": "absent", "formula": "nothing * 2"},
                 {"field": "ticks_per_hz_whole", "formula": "ticks / hz", "digits": 0}]"""), List.of(measured, unmeasured));
        assertTrue(measured.get("ticks_per_hz_whole").isIntegralNumber(), "digits 0: a whole number, not 3.0");
        assertEquals(3.0, measured.get("cpu_s").asDouble());
        assertEquals(30.0, measured.get("cpu_us_per_req").asDouble());
        assertTrue(measured.get("absent").isNull());
        assertTrue(unmeasured.get("cpu_us_per_req").isNull(), "no requests: nothing per request, not an error");
    }

    @Test
    void aFormulaThatDoesNotParseNamesItsField() {
        Derivations.BadFormula e = assertThrows(Derivations.BadFormula.class, () -> Derivations.apply(Fixtures.json("""
                [{"field": "broken", "formula": "(ticks / "}]"""), List.of(Fixtures.row("kodiak", "a", 1))));
        assertTrue(e.getMessage().contains("broken"), e.getMessage());
    }
}
