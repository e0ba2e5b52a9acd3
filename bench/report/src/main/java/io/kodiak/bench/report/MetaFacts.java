package io.kodiak.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import io.kodiak.bench.report.Page.Fact;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

/** The run's description as a reader wants it: command, commit, when and how long, machine, versions. */
final class MetaFacts {

    private MetaFacts() {
    }

    static List<Fact> of(JsonNode meta) {
        List<Fact> facts = new ArrayList<>();
        facts.add(new Fact("command", meta.path("command").asText()));
        facts.add(new Fact("commit", meta.path("commit").asText()));
        facts.add(new Fact("when", when(meta.path("started").asText(), meta.path("ended").asText())));
        facts.add(new Fact("machine", machine(meta.path("machine"))));
        meta.path("versions").fields().forEachRemaining(e -> facts.add(new Fact(e.getKey(), e.getValue().asText())));
        meta.path("params").fields().forEachRemaining(e -> {
            if (!e.getValue().isNull()) { // a setting given empty says nothing
                facts.add(new Fact(e.getKey(), e.getValue().asText()));
            }
        });
        return facts;
    }

    private static String when(String started, String ended) {
        try {
            Duration d = Duration.between(OffsetDateTime.parse(started), OffsetDateTime.parse(ended));
            return started + " to " + ended + " (" + d.toMinutes() + " min " + d.toSecondsPart() + " s)";
        } catch (java.time.format.DateTimeParseException e) {
            return started + " to " + ended;
        }
    }

    private static String machine(JsonNode m) {
        StringBuilder s = new StringBuilder().append(m.path("cores").asInt()).append(" cores");
        if (m.hasNonNull("memory_mib")) {
            s.append(", ").append(Numbers.format(m.get("memory_mib").asDouble() / 1024, 0)).append(" GiB");
        }
        if (m.hasNonNull("kernel")) {
            s.append(", Linux ").append(m.get("kernel").asText());
        }
        s.append("; load average ").append(load(m.path("load_before"))).append(" before, ")
                .append(load(m.path("load_during"))).append(" during");
        if (m.path("load_samples").asInt() > 0) {
            s.append(" (mean of ").append(m.get("load_samples").asInt()).append(" samples)");
        }
        return s.toString();
    }

    private static String load(JsonNode v) {
        return v.isNumber() ? Numbers.format(v.asDouble(), 2) : "not taken";
    }
}
