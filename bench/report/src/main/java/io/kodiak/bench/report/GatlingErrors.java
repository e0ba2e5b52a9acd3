package io.kodiak.bench.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Why a Gatling run's requests failed, from its {@code simulation.log}: global_stats.json counts the
 * failures but does not say what they were. Gatling 3.12 writes the log as tab-separated records; a
 * request's is {@code REQUEST, group, name, start, end, OK|KO, message}.
 */
final class GatlingErrors {

    private static final int STATUS = 5;
    private static final int MESSAGE = 6;

    private GatlingErrors() {
    }

    /** The failed requests' messages with how often each occurred (a 10x run's log is large: it is streamed). */
    static Map<String, Long> of(Path simulationLog) throws IOException {
        Map<String, Long> counts = new TreeMap<>();
        try (Stream<String> lines = Files.lines(simulationLog, StandardCharsets.UTF_8)) {
            lines.filter(l -> l.startsWith("REQUEST\t")).map(l -> l.split("\t", -1))
                    .filter(f -> f.length > MESSAGE && f[STATUS].equals("KO"))
                    .forEach(f -> counts.merge(f[MESSAGE].strip(), 1L, Long::sum));
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        return counts;
    }

    /** "message (n×)" for the most frequent failure, and how many other kinds there were. */
    static Optional<String> summary(Path simulationLog) throws IOException {
        Map<String, Long> counts = of(simulationLog);
        return counts.entrySet().stream()
                .max(Map.Entry.<String, Long>comparingByValue().thenComparing(Map.Entry.comparingByKey(Comparator.reverseOrder())))
                .map(top -> top.getKey() + " (" + top.getValue() + "×)"
                        + (counts.size() > 1 ? " and " + (counts.size() - 1) + " other kind(s) of failure" : ""));
    }
}
