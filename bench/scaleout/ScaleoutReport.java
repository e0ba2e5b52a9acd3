import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The report of bin/bench.sh scaleout: per target and round, from the load's request lines
 * (bench/failover/FailoverLoad.java: start end method id status) and the split file (requests each
 * instance counted), requests per second, failures, p50/p99 and the split; report.md gives the
 * median over the rounds with the range, results.json every row.
 *
 *   java ScaleoutReport.java OUT COMMAND LOAD_BEFORE LOAD_AFTER ROUNDS TARGET...
 */
public final class ScaleoutReport {
    record Row(String target, int round, long requests, double perSecond, long failed, double p50, double p99,
               long instance1, long instance2) {
    }

    public static void main(String[] args) throws IOException {
        Path out = Path.of(args[0]);
        int rounds = Integer.parseInt(args[4]);
        List<String> targets = Arrays.asList(args).subList(5, args.length);
        List<Row> rows = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            for (String target : targets) {
                Path dir = out.resolve("r" + round).resolve(target);
                if (Files.exists(dir.resolve("split"))) {
                    rows.add(row(target, round, dir));
                }
            }
        }
        Files.writeString(out.resolve("report.md"), markdown(targets, rows, args[1], args[2], args[3]));
        StringBuilder json = new StringBuilder("{\"command\":\"" + args[1].replace("\"", "\\\"") + "\",\"rows\":[");
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            json.append(i == 0 ? "" : ",").append(String.format(Locale.ROOT,
                    "{\"target\":\"%s\",\"round\":%d,\"requests\":%d,\"per_second\":%.1f,\"failed\":%d,\"p50_ms\":%.1f,"
                            + "\"p99_ms\":%.1f,\"instance1\":%d,\"instance2\":%d}",
                    r.target(), r.round(), r.requests(), r.perSecond(), r.failed(), r.p50(), r.p99(), r.instance1(), r.instance2()));
        }
        Files.writeString(out.resolve("results.json"), json.append("]}\n").toString());
    }

    private static Row row(String target, int round, Path dir) throws IOException {
        Map<String, Long> split = new HashMap<>();
        for (String line : Files.readAllLines(dir.resolve("split"))) {
            String[] kv = line.split(" ");
            split.put(kv[0], Long.parseLong(kv[1]));
        }
        List<String> lines = Files.readAllLines(dir.resolve("requests.tsv"));
        long failed = 0;
        double[] latency = new double[lines.size()];
        for (int i = 0; i < lines.size(); i++) {
            String[] f = lines.get(i).split(" ");
            latency[i] = Long.parseLong(f[1]) - Long.parseLong(f[0]);
            if (!f[4].equals("200")) {
                failed++;
            }
        }
        Arrays.sort(latency);
        return new Row(target, round, lines.size(), lines.size() / (double) split.get("seconds"), failed, pct(latency, 50),
                pct(latency, 99), split.get("instance1"), split.get("instance2"));
    }

    private static double pct(double[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int i = (int) Math.ceil(p / 100 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    private static String median(List<Row> runs, ToDoubleFunction<Row> value) {
        double[] v = runs.stream().mapToDouble(value).sorted().toArray();
        if (v.length == 0) {
            return "–";
        }
        double median = v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
        return v.length == 1 || v[0] == v[v.length - 1] ? number(median)
                : number(median) + " [" + number(v[0]) + "–" + number(v[v.length - 1]) + "]";
    }

    private static String number(double v) {
        return v == Math.rint(v) ? String.format(Locale.ROOT, "%,d", (long) v) : String.format(Locale.ROOT, "%,.1f", v);
    }

    private static String markdown(List<String> targets, List<Row> rows, String command, String loadBefore, String loadAfter) {
        StringBuilder md = new StringBuilder("# Kodiak behind an L4 balancer (HAProxy, TCP mode)\n\n`")
                .append(command).append("` — load average ").append(loadBefore).append(" before, ").append(loadAfter)
                .append(" after. Median over the rounds [min–max].\n\n")
                .append("| target | requests/s | failed | p50 ms | p99 ms | instance 1 | instance 2 |\n|---|---|---|---|---|---|---|\n");
        for (String target : targets) {
            List<Row> runs = rows.stream().filter(r -> r.target().equals(target)).toList();
            md.append("| ").append(target).append(" | ").append(median(runs, Row::perSecond)).append(" | ")
                    .append(median(runs, Row::failed)).append(" | ").append(median(runs, Row::p50)).append(" | ")
                    .append(median(runs, Row::p99)).append(" | ").append(median(runs, Row::instance1)).append(" | ")
                    .append(median(runs, Row::instance2)).append(" |\n");
        }
        return md.append("\nInstance columns: requests each Kodiak counted during the run (kodiak_requests_total).\n").toString();
    }
}
