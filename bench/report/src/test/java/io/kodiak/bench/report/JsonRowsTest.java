package io.kodiak.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JsonRowsTest {

    @Test
    void eachLineIsARowWithItsValuesAsWritten(@TempDir Path dir) throws Exception {
        Path jsonl = dir.resolve("rows.jsonl");
        Files.writeString(jsonl, "{\"target\":\"kodiak\",\"scenario\":\"kill\",\"requests\":10,\"p99_ms\":2.5,\"failures\":\"502\\tx\",\"alive\":true}\n\n"
                + "{\"target\":\"nginx\",\"scenario\":\"kill\",\"recovery_ms\":null}\n");
        var rows = JsonRows.read(jsonl);
        assertEquals(2, rows.size(), "blank lines are skipped");
        ObjectNode row = rows.get(0);
        assertTrue(row.get("requests").isIntegralNumber());
        assertEquals(2.5, row.get("p99_ms").asDouble());
        assertEquals("502\tx", row.get("failures").asText(), "text keeps its tabs");
        assertTrue(row.get("alive").isBoolean());
        assertTrue(rows.get(1).get("recovery_ms").isNull());
        assertTrue(JsonRows.handles(jsonl));
        assertFalse(JsonRows.handles(dir.resolve("rows.tsv")));
    }

    @Test
    void aLineThatIsNotAnObjectOrATextTargetIsRefusedWithItsNumber(@TempDir Path dir) throws Exception {
        Path jsonl = dir.resolve("rows.jsonl");
        Files.writeString(jsonl, "{\"target\":\"kodiak\"}\n[1]\n");
        IOException e = assertThrows(IOException.class, () -> JsonRows.read(jsonl));
        assertTrue(e.getMessage().contains("line 2"), e.getMessage());
        Files.writeString(jsonl, "{\"target\":3}\n");
        assertThrows(IOException.class, () -> JsonRows.read(jsonl));
    }
}
