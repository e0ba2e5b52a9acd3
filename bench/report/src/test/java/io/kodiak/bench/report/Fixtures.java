package io.kodiak.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;

/** Results documents built in the tests: rows of two targets over cells and repetitions. */
final class Fixtures {

    private Fixtures() {
    }

    static ObjectNode row(String target, String scenario, int repetition) {
        ObjectNode row = JsonNodeFactory.instance.objectNode();
        row.put("target", target);
        row.put("scenario", scenario);
        row.put("repetition", repetition);
        for (String f : new String[] {"requests", "ok", "ko", "rps", "p50_ms", "p95_ms", "p99_ms", "mean_ms"}) {
            row.putNull(f);
        }
        return row;
    }

    static ObjectNode results(String reportJson, ObjectNode... rows) throws IOException {
        ObjectNode results = JsonNodeFactory.instance.objectNode();
        results.put("schema", "kodiak-bench-results/1");
        results.put("bench", "throughput");
        ObjectNode meta = results.putObject("meta");
        meta.put("command", "bin/bench.sh throughput --quick");
        meta.put("commit", "abc1234");
        meta.put("started", "2026-11-24T16:00:00Z");
        meta.put("ended", "2026-11-24T16:02:30Z");
        ObjectNode machine = meta.putObject("machine");
        machine.put("cores", 2);
        machine.put("load_before", 0.25);
        machine.putNull("load_during");
        meta.putObject("versions").put("nginx", "nginx/1.22.1");
        ArrayNode array = results.putArray("rows");
        for (ObjectNode r : rows) {
            array.add(r);
        }
        results.set("report", ResultsFile.JSON.readTree(reportJson));
        return results;
    }

    static JsonNode json(String text) throws IOException {
        return ResultsFile.JSON.readTree(text);
    }
}
