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
 * The report of bin/bench.sh reload: per proxy and round, from the load's request lines
 * (bench/failover/FailoverLoad.java: start end method id status) and the run's events file,
 * failed requests, latency in the baseline and during the reloads, reload command times and
 * memory before and after the reloads; report.md gives each figure's median and range over the
 * rounds, results.json every row.
 *
 *   java ReloadReport.java OUT COMMAND LOAD_BEFORE LOAD_AFTER ROUNDS TARGET...
 */
public final class ReloadReport {
    record Row(String target, int round, long requests, long failed, long errors, long non200, double baseP50,
               double baseP99, double reloadP50, double reloadP99, double reloadMax, double reloadCommandMedian,
               long failedReloads, long reloads, long rssBefore, long rssAfter, long heapBefore, long heapAfter) {
    }

    public static void main(String[] args) throws IOException {
        Path out = Path.of(args[0]);
        String command = args[1];
        int rounds = Integer.parseInt(args[4]);
        List<String> targets = Arrays.asList(args).subList(5, args.length);
        List<Row> rows = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            for (String target : targets) {
                Path dir = out.resolve("r" + round).resolve(target);
                if (Files.exists(dir.resolve("events"))) {
                    rows.add(row(target, round, dir));
                }
            }
        }
        Files.writeString(out.resolve("report.md"), markdown(targets, rows, command, args[2], args[3]));
        Files.writeString(out.resolve("results.json"), json(rows, command, args[2], args[3]));
    }

    private static Row row(String target, int round, Path dir) throws IOException {
        Map<String, Long> events = new HashMap<>();
        for (String line : Files.readAllLines(dir.resolve("events"))) {
            String[] kv = line.split(" ");
            events.put(kv[0], Long.parseLong(kv[1]));
        }
        long from = events.get("reloads_from");
        long to = events.get("reloads_to");
        double[] base = latencies(dir.resolve("baseline.tsv"), Long.MIN_VALUE, Long.MAX_VALUE);
        List<String> run = Files.readAllLines(dir.resolve("requests.tsv"));
        long errors = 0;
        long non200 = 0;
        List<Double> during = new ArrayList<>();
        for (String line : run) {
            String[] f = line.split(" ");
            long start = Long.parseLong(f[0]);
            long end = Long.parseLong(f[1]);
            int status = Integer.parseInt(f[4]);
            if (status == 0) {
                errors++;
            } else if (status != 200) {
                non200++;
            }
            if (start >= from && start <= to + 1000) {
                during.add((double) (end - start));
            }
        }
        double[] reloadWindow = during.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        double[] commandTimes = Files.readAllLines(dir.resolve("reload-times")).stream()
                .mapToDouble(Double::parseDouble).sorted().toArray();
        return new Row(target, round, run.size(), errors + non200, errors, non200, pct(base, 50), pct(base, 99),
                pct(reloadWindow, 50), pct(reloadWindow, 99), reloadWindow.length == 0 ? 0 : reloadWindow[reloadWindow.length - 1],
                pct(commandTimes, 50), events.get("failed_reloads"), events.get("reloads"), events.get("rss_before"),
                events.get("rss_after"), events.get("heap_before"), events.get("heap_after"));
    }

    private static double[] latencies(Path tsv, long from, long to) throws IOException {
        return Files.readAllLines(tsv).stream().map(l -> l.split(" "))
                .filter(f -> Long.parseLong(f[0]) >= from && Long.parseLong(f[0]) <= to)
                .mapToDouble(f -> Long.parseLong(f[1]) - Long.parseLong(f[0])).sorted().toArray();
    }

    private static double pct(double[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int i = (int) Math.ceil(p / 100 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    record Column(String name, ToDoubleFunction<Row> value) {
    }

    private static final List<Column> COLUMNS = List.of(
            new Column("requests", Row::requests),
            new Column("failed (errors + non-200)", Row::failed),
            new Column("baseline p50 / p99 ms", r -> Double.NaN),
            new Column("reloading p50 / p99 / max ms", r -> Double.NaN),
            new Column("reload command ms (median)", Row::reloadCommandMedian),
            new Column("RSS before → after reloads, MiB", r -> Double.NaN),
            new Column("heap after full GC before → after, MiB", r -> Double.NaN));

    private static String median(List<Row> runs, ToDoubleFunction<Row> value) {
        double[] v = runs.stream().mapToDouble(value).sorted().toArray();
        if (v.length == 0) {
            return "–";
        }
        double median = v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
        String m = number(median);
        return v.length == 1 || v[0] == v[v.length - 1] ? m : m + " [" + number(v[0]) + "–" + number(v[v.length - 1]) + "]";
    }

    private static String number(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? String.format(Locale.ROOT, "%,d", (long) v)
                : String.format(Locale.ROOT, "%,.1f", v);
    }

    private static String markdown(List<String> targets, List<Row> rows, String command, String loadBefore, String loadAfter) {
        StringBuilder md = new StringBuilder();
        int reloads = rows.isEmpty() ? 0 : (int) rows.get(0).reloads();
        md.append("# Configuration reloads under load\n\n")
                .append("`").append(command).append("` — load average ").append(loadBefore).append(" before, ")
                .append(loadAfter).append(" after. ").append(reloads)
                .append(" reloads, one a second, alternating the group's servers (one added, one removed each time) and the read timeout. ")
                .append("Median over the rounds [min–max].\n\n");
        md.append("| proxy |");
        COLUMNS.forEach(c -> md.append(' ').append(c.name()).append(" |"));
        md.append("\n|---|");
        COLUMNS.forEach(c -> md.append("---|"));
        md.append('\n');
        for (String target : targets) {
            List<Row> runs = rows.stream().filter(r -> r.target().equals(target)).toList();
            md.append("| ").append(target).append(" | ")
                    .append(median(runs, Row::requests)).append(" | ")
                    .append(median(runs, Row::failed)).append(" | ")
                    .append(median(runs, Row::baseP50)).append(" / ").append(median(runs, Row::baseP99)).append(" | ")
                    .append(median(runs, Row::reloadP50)).append(" / ").append(median(runs, Row::reloadP99)).append(" / ")
                    .append(median(runs, Row::reloadMax)).append(" | ")
                    .append(median(runs, Row::reloadCommandMedian))
                    .append(runs.stream().anyMatch(r -> r.failedReloads() > 0) ? " (some failed)" : "").append(" | ")
                    .append(median(runs, r -> r.rssBefore() / 1024.0)).append(" → ").append(median(runs, r -> r.rssAfter() / 1024.0)).append(" | ")
                    .append(target.equals("kodiak")
                            ? median(runs, r -> r.heapBefore() / 1024.0) + " → " + median(runs, r -> r.heapAfter() / 1024.0) : "–")
                    .append(" |\n");
        }
        md.append("\nFailed: connection errors (status 0 in the load's lines) plus responses other than 200. ")
                .append("Reloading: requests that started between the first reload and one second after the last. ")
                .append("RSS: every process of the proxy's session (nginx's and HAProxy's old workers still finishing included), ")
                .append("3 s after the last reload.\n\nPer run:\n\n| proxy | round | requests | errors | non-200 | reloading p99 ms | RSS before → after KiB |\n|---|---|---|---|---|---|---|\n");
        for (Row r : rows) {
            md.append("| ").append(r.target()).append(" | ").append(r.round()).append(" | ").append(r.requests()).append(" | ")
                    .append(r.errors()).append(" | ").append(r.non200()).append(" | ").append(number(r.reloadP99())).append(" | ")
                    .append(r.rssBefore()).append(" → ").append(r.rssAfter()).append(" |\n");
        }
        return md.toString();
    }

    private static String json(List<Row> rows, String command, String loadBefore, String loadAfter) {
        StringBuilder json = new StringBuilder("{\"command\":\"").append(command.replace("\\", "\\\\").replace("\"", "\\\""))
                .append("\",\"load_before\":").append(loadBefore).append(",\"load_after\":").append(loadAfter).append(",\"rows\":[");
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            json.append(i == 0 ? "" : ",").append(String.format(Locale.ROOT,
                    "{\"target\":\"%s\",\"round\":%d,\"requests\":%d,\"errors\":%d,\"non200\":%d,\"baseline_p50_ms\":%.1f,"
                            + "\"baseline_p99_ms\":%.1f,\"reloading_p50_ms\":%.1f,\"reloading_p99_ms\":%.1f,\"reloading_max_ms\":%.1f,"
                            + "\"reload_command_median_ms\":%.1f,\"failed_reloads\":%d,\"reloads\":%d,\"rss_before_kib\":%d,"
                            + "\"rss_after_kib\":%d,\"heap_before_kib\":%d,\"heap_after_kib\":%d}",
                    r.target(), r.round(), r.requests(), r.errors(), r.non200(), r.baseP50(), r.baseP99(), r.reloadP50(),
                    r.reloadP99(), r.reloadMax(), r.reloadCommandMedian(), r.failedReloads(), r.reloads(), r.rssBefore(),
                    r.rssAfter(), r.heapBefore(), r.heapAfter()));
        }
        return json.append("]}\n").toString();
    }
}
