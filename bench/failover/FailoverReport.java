import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads what bench/failover/run.sh left in OUT/&lt;target&gt;/ (requests.tsv from the load, the three
 * servers' request logs, the kill and restart times, the proxy's own log) and writes report.md,
 * report.html and results.json in OUT.
 *
 * With several rounds (OUT/r&lt;N&gt;/&lt;target&gt;/), the report gives each figure's median and range per
 * target; results.json keeps one row per target and round.
 *
 *   java FailoverReport.java OUT COMMAND LOAD_BEFORE LOAD_AFTER ROUNDS TARGET...
 */
public final class FailoverReport {
    record Row(String target, int round, long requests, long ok, long ko, long koGet, long koPost, long getTwice, long postTwice,
               double rps, double p50, double p95, double p99, double mean, double p99Down, long detectMs, long reuseMs,
               String detectedBy) {
    }

    public static void main(String[] args) throws IOException {
        Path out = Path.of(args[0]);
        String command = args[1];
        int rounds = Integer.parseInt(args[4]);
        List<String> targets = List.of(Arrays.copyOfRange(args, 5, args.length));
        List<Row> rows = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            for (String target : targets) {
                rows.add(row(target, round, out.resolve("r" + round).resolve(target)));
            }
        }
        Files.writeString(out.resolve("results.json"), json(rows, command, args[2], args[3]));
        Files.writeString(out.resolve("report.md"), markdown(targets, rows, command, args[2], args[3]));
        Files.writeString(out.resolve("report.html"), html(targets, rows, command));
    }

    private static Row row(String target, int round, Path dir) throws IOException {
        Map<String, Long> events = new HashMap<>();
        for (String line : Files.readAllLines(dir.resolve("events"))) {
            String[] kv = line.split(" ");
            events.put(kv[0], Long.parseLong(kv[1]));
        }
        long killed = events.get("killed");
        long restarted = events.get("restarted");
        long victim = events.get("victim");

        List<long[]> requests = new ArrayList<>();   // start, end, isPost, status
        long koGet = 0;
        long koPost = 0;
        long first = Long.MAX_VALUE;
        long last = 0;
        for (String line : Files.readAllLines(dir.resolve("requests.tsv"))) {
            String[] f = line.split(" ");
            long start = Long.parseLong(f[0]);
            long end = Long.parseLong(f[1]);
            boolean post = f[2].equals("POST");
            int status = Integer.parseInt(f[4]);
            requests.add(new long[] {start, end, post ? 1 : 0, status});
            if (status < 200 || status > 299) {
                if (post) {
                    koPost++;
                } else {
                    koGet++;
                }
            }
            first = Math.min(first, start);
            last = Math.max(last, end);
        }
        double[] all = requests.stream().mapToDouble(r -> r[1] - r[0]).sorted().toArray();
        double[] down = requests.stream().filter(r -> r[0] >= killed && r[0] < restarted)
                .mapToDouble(r -> r[1] - r[0]).sorted().toArray();

        Map<String, Integer> deliveries = new HashMap<>();
        Map<String, Boolean> isPost = new HashMap<>();
        long reuse = -1;
        for (int i = 0; i < 3; i++) {
            for (String line : Files.readAllLines(dir.resolve("stub-" + i + ".log"))) {
                String[] f = line.split(" ");
                if (f.length < 3 || !f[2].startsWith("run-")) {
                    continue;
                }
                deliveries.merge(f[2], 1, Integer::sum);
                isPost.put(f[2], f[1].equals("POST"));
                long at = Long.parseLong(f[0]);
                if (i == 1 && at >= restarted && (reuse < 0 || at - restarted < reuse)) {
                    reuse = at - restarted;
                }
            }
        }
        long getTwice = deliveries.entrySet().stream().filter(e -> e.getValue() > 1 && !isPost.get(e.getKey())).count();
        long postTwice = deliveries.entrySet().stream().filter(e -> e.getValue() > 1 && isPost.get(e.getKey())).count();

        long[] detected = detection(target, dir, victim, killed);
        long ok = requests.size() - koGet - koPost;
        return new Row(target, round, requests.size(), ok, koGet + koPost, koGet, koPost, getTwice, postTwice,
                requests.size() / Math.max(0.001, (last - first) / 1000.0), pct(all, 50), pct(all, 95), pct(all, 99),
                Arrays.stream(all).average().orElse(0), pct(down, 99), detected[0], reuse,
                detected[0] < 0 ? "no log line found" : DETECTED_BY.get(target));
    }

    private static final Map<String, String> DETECTED_BY = Map.of(
            "kodiak", "kodiak.log: the server ejected or DOWN",
            "nginx", "error.log: upstream server temporarily disabled (1 s resolution)",
            "haproxy", "log: Server be/s2 is DOWN");

    /** Milliseconds from the kill to the proxy's first log line taking the dead server out; -1 when none. */
    private static long[] detection(String target, Path dir, long victim, long killed) throws IOException {
        ZoneId zone = ZoneId.systemDefault();
        List<Long> times = new ArrayList<>();
        switch (target) {
            case "kodiak" -> {
                Pattern p = Pattern.compile("^(\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}\\.\\d{3}) .*server 127\\.0\\.0\\.1:" + victim
                        + " (ejected|is DOWN)");
                for (String line : lines(dir.resolve("logs/kodiak.log"))) {
                    Matcher m = p.matcher(line);
                    if (m.find()) {
                        times.add(LocalDateTime.parse(m.group(1), DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS"))
                                .atZone(zone).toInstant().toEpochMilli());
                    }
                }
            }
            case "nginx" -> {
                Pattern p = Pattern.compile("^(\\d{4}/\\d{2}/\\d{2} \\d{2}:\\d{2}:\\d{2}) .*upstream server temporarily disabled.*127\\.0\\.0\\.1:" + victim);
                for (String line : lines(dir.resolve("logs/error.log"))) {
                    Matcher m = p.matcher(line);
                    if (m.find()) {
                        times.add(LocalDateTime.parse(m.group(1), DateTimeFormatter.ofPattern("yyyy/MM/dd HH:mm:ss"))
                                .atZone(zone).toInstant().toEpochMilli());
                    }
                }
            }
            default -> {
                Pattern p = Pattern.compile(" (\\d{4}-\\d{2}-\\d{2}T[0-9:.]+[+-]\\d{2}:\\d{2}) .*Server be/s2 is DOWN");
                for (String line : lines(dir.resolve("console.log"))) {
                    Matcher m = p.matcher(line);
                    if (m.find()) {
                        times.add(OffsetDateTime.parse(m.group(1)).toInstant().toEpochMilli());
                    }
                }
            }
        }
        // nginx logs whole seconds: a line in the kill's own second counts as at the kill.
        long slack = target.equals("nginx") ? 1000 : 0;
        return new long[] {times.stream().filter(t -> t + slack >= killed).mapToLong(t -> Math.max(0, t - killed)).min().orElse(-1)};
    }

    private static List<String> lines(Path file) throws IOException {
        return Files.exists(file) ? Files.readAllLines(file) : List.of();
    }

    private static double pct(double[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int i = (int) Math.ceil(p / 100 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    private static String ms(long v) {
        return v < 0 ? "—" : String.valueOf(v);
    }

    /** The figures of one column: name and how to read it from a row. */
    record Column(String name, java.util.function.ToDoubleFunction<Row> value) {
    }

    private static final List<Column> COLUMNS = List.of(
            new Column("failed GET", Row::koGet), new Column("failed POST", Row::koPost),
            new Column("GET twice", Row::getTwice), new Column("POST twice", Row::postTwice),
            new Column("req/s", Row::rps), new Column("p99 ms", Row::p99), new Column("p99 while down ms", Row::p99Down),
            new Column("out after ms", r -> r.detectMs()), new Column("used again after ms", r -> r.reuseMs()));

    /** Median [min–max] over the rounds; one value when there was one round. */
    private static String cell(List<Row> runs, Column column) {
        double[] v = runs.stream().mapToDouble(column.value()).filter(x -> x >= 0).sorted().toArray();
        if (v.length == 0) {
            return "—";
        }
        String median = number(v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2);
        return v.length == 1 ? median : median + " [" + number(v[0]) + "–" + number(v[v.length - 1]) + "]";
    }

    private static String number(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.format(Locale.ROOT, "%.1f", v);
    }

    private static List<Row> of(List<Row> rows, String target) {
        return rows.stream().filter(r -> r.target().equals(target)).toList();
    }

    private static String markdown(List<String> targets, List<Row> rows, String command, String loadBefore, String loadAfter) {
        StringBuilder md = new StringBuilder("# Failover: one of three servers killed and restarted\n\n");
        md.append("- **command**: ").append(command).append('\n');
        md.append("- **load average**: ").append(loadBefore).append(" before, ").append(loadAfter).append(" after\n");
        md.append("- **rounds**: ").append(rows.stream().mapToInt(Row::round).max().orElse(0))
                .append(" (each cell: median [min–max] over the rounds)\n");
        md.append("- **scenario**: bench/failover/run.sh: three servers answering after 20 ms; the one on 9712 is killed (kill -9)"
                + " 20 s into a 60 s run and restarted 20 s later (--quick: 8 s into 24 s, restarted at 16 s)\n\n");
        md.append("| target |");
        COLUMNS.forEach(c -> md.append(' ').append(c.name()).append(" |"));
        md.append("\n|---|");
        COLUMNS.forEach(c -> md.append("---:|"));
        md.append('\n');
        for (String target : targets) {
            md.append("| ").append(target).append(" |");
            COLUMNS.forEach(c -> md.append(' ').append(cell(of(rows, target), c)).append(" |"));
            md.append('\n');
        }
        md.append("\nTotals over the rounds: ");
        for (String target : targets) {
            List<Row> runs = of(rows, target);
            md.append(String.format(Locale.ROOT, "%s %d requests, %d failed GET, %d failed POST, %d POST delivered twice; ",
                    target, runs.stream().mapToLong(Row::requests).sum(), runs.stream().mapToLong(Row::koGet).sum(),
                    runs.stream().mapToLong(Row::koPost).sum(), runs.stream().mapToLong(Row::postTwice).sum()));
        }
        md.setLength(md.length() - 2);
        md.append(".\n\n\"out after\": from the kill to the proxy's own log line taking the server out (");
        for (String target : targets) {
            md.append(target).append(": ").append(DETECTED_BY.get(target)).append("; ");
        }
        md.setLength(md.length() - 2);
        md.append("). \"used again after\": from the restart to the first request the restarted server logged.\n");
        md.append("A GET reaching two servers is a retry, which is safe; a POST reaching two is a second delivery.\n");
        return md.toString();
    }

    private static String html(List<String> targets, List<Row> rows, String command) {
        StringBuilder h = new StringBuilder("<!doctype html><meta charset=\"utf-8\"><title>Failover</title>"
                + "<style>body{font-family:sans-serif}td,th{padding:4px 8px;text-align:right}td:first-child{text-align:left}</style>"
                + "<h1>Failover: one of three servers killed and restarted</h1><p>");
        h.append(escape(command)).append("</p><p>Each cell: median [min–max] over the rounds.</p><table><tr><th>target");
        COLUMNS.forEach(c -> h.append("<th>").append(escape(c.name())));
        h.append("</tr>");
        for (String target : targets) {
            h.append("<tr><td>").append(escape(target));
            COLUMNS.forEach(c -> h.append("<td>").append(escape(cell(of(rows, target), c))));
            h.append("</tr>");
        }
        return h.append("</table>\n").toString();
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    private static String json(List<Row> rows, String command, String loadBefore, String loadAfter) {
        StringBuilder j = new StringBuilder("{\"meta\":{\"command\":\"").append(command.replace("\\", "\\\\").replace("\"", "\\\""))
                .append("\",\"load_before\":").append(loadBefore).append(",\"load_after\":").append(loadAfter).append("},\"rows\":[");
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            j.append(i == 0 ? "" : ",").append(String.format(Locale.ROOT,
                    "{\"target\":\"%s\",\"scenario\":\"failover\",\"round\":%d,\"requests\":%d,\"ok\":%d,\"ko\":%d,\"ko_get\":%d,\"ko_post\":%d,"
                            + "\"get_delivered_twice\":%d,\"post_delivered_twice\":%d,\"rps\":%.1f,\"p50_ms\":%.1f,\"p95_ms\":%.1f,"
                            + "\"p99_ms\":%.1f,\"mean_ms\":%.2f,\"p99_while_down_ms\":%.1f,\"out_after_ms\":%d,\"used_again_after_ms\":%d}",
                    r.target(), r.round(), r.requests(), r.ok(), r.ko(), r.koGet(), r.koPost(), r.getTwice(), r.postTwice(), r.rps(), r.p50(),
                    r.p95(), r.p99(), r.mean(), r.p99Down(), r.detectMs(), r.reuseMs()));
        }
        return j.append("]}\n").toString();
    }
}
