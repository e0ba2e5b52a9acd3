package io.kodiak.bench.report;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The meta block of a results file: what the script knows (command, start, load before) and what is read here. */
final class Meta {
    private static final DateTimeFormatter ENDED = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ssXXX");

    private Meta() {
    }

    /** RFC 3339 to the second, seconds always written. */
    static String timestamp(OffsetDateTime at) {
        return ENDED.format(at);
    }

    /**
     * @param loadSamples a file of 1-minute load averages the script sampled between measurements, one per
     *                    line (bench/lib/report.sh's bench_sample_load), or null
     */
    static ObjectNode of(String command, String started, Double loadBefore, Path loadSamples, Path repo,
                         Map<String, String> versions, Map<String, String> params) throws IOException {
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode meta = f.objectNode();
        meta.put("command", command);
        meta.put("commit", commit(repo));
        meta.put("started", started);
        // A pattern, not toString(): at a whole minute toString() drops the seconds ("...T20:35Z"),
        // which RFC 3339 and the schema refuse.
        meta.put("ended", timestamp(OffsetDateTime.now(ZoneOffset.UTC)));
        ObjectNode machine = meta.putObject("machine");
        machine.put("cores", Runtime.getRuntime().availableProcessors());
        machine.put("memory_mib", memoryMib());
        machine.put("kernel", firstLine(Path.of("/proc/sys/kernel/osrelease")));
        machine.put("load_before", loadBefore);
        List<Double> samples = loadSamples == null || !Files.exists(loadSamples) ? List.of()
                : Files.readAllLines(loadSamples).stream().filter(l -> !l.isBlank()).map(Double::valueOf).toList();
        machine.put("load_during", samples.isEmpty() ? null : samples.stream().mapToDouble(Double::doubleValue).average().orElseThrow());
        machine.put("load_samples", samples.size());
        ObjectNode v = meta.putObject("versions");
        versions.forEach(v::put);
        ObjectNode p = meta.putObject("params");
        params.forEach((k, value) -> TsvRows.put(p, k, value));
        return meta;
    }

    private static String commit(Path repo) {
        try {
            Process git = new ProcessBuilder("git", "-C", repo.toString(), "describe", "--always", "--dirty", "--abbrev=7")
                    .redirectErrorStream(true).start();
            String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return git.waitFor(10, TimeUnit.SECONDS) && git.exitValue() == 0 && !out.isEmpty() ? out : "unknown";
        } catch (IOException e) {
            return "unknown";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    private static Integer memoryMib() {
        String line = lineStarting(Path.of("/proc/meminfo"), "MemTotal:");
        return line == null ? null : (int) (Long.parseLong(line.replaceAll("\\D", "")) / 1024);
    }

    private static String firstLine(Path file) {
        try {
            return Files.readAllLines(file).stream().findFirst().orElse(null);
        } catch (IOException e) {
            return null;
        }
    }

    private static String lineStarting(Path file, String prefix) {
        try {
            return Files.readAllLines(file).stream().filter(l -> l.startsWith(prefix)).findFirst().orElse(null);
        } catch (IOException e) {
            return null;
        }
    }
}
