// Report generator of bin/bench.sh throughput, run with the JDK's source launcher (no build, no dependencies):
//
//   java bench/throughput/ThroughputReport.java --runs runs.tsv --out-dir DIR [--meta key=value ...]
//
// runs.tsv holds one raw measurement per line as run.sh wrote it (wrk's counters and latency percentiles,
// clock ticks from /proc). This turns them into results.json (one object per measured run, with the derived
// figures), report.md and a self-contained report.html with inline SVG charts, and prints the main tables.

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;

public class ThroughputReport {
    static final List<String> TARGET_ORDER = List.of("kodiak", "nginx", "haproxy", "undertow", "vertx", "relay", "nio-relay", "direct");
    static final Map<String, String> LABEL = Map.of("kodiak", "Kodiak", "nginx", "nginx", "haproxy", "HAProxy",
            "undertow", "Undertow ProxyHandler", "vertx", "Vert.x http-proxy",
            "relay", "Grizzly relay (no HTTP)", "nio-relay", "JDK NIO relay (no HTTP)", "direct", "direct");
    static final Map<String, String> COLOR = Map.of("kodiak", "#d9480f", "nginx", "#2b8a3e", "haproxy", "#1864ab",
            "undertow", "#0b7285", "vertx", "#5c940d",
            "relay", "#ae3ec9", "nio-relay", "#f59f00", "direct", "#868e96");
    /** The stub's delay in the scale runs: connections / delay is the most a closed loop can complete. */
    static final double SCALE_DELAY_S = 0.5;

    public static void main(String[] args) throws IOException {
        Path runs = null;
        Path outDir = null;
        Map<String, String> meta = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                usage("missing value after " + args[i]);
            }
            switch (args[i]) {
                case "--runs" -> runs = Path.of(args[i + 1]);
                case "--out-dir" -> outDir = Path.of(args[i + 1]);
                case "--meta" -> {
                    String kv = args[i + 1];
                    int eq = kv.indexOf('=');
                    if (eq <= 0) {
                        usage("--meta expects key=value, got " + kv);
                    }
                    // Several preflight failures share a key; keep them all.
                    String key = kv.substring(0, eq);
                    meta.merge(key, kv.substring(eq + 1), (a, b) -> a + "; " + b);
                }
                default -> usage("unknown option " + args[i]);
            }
        }
        if (runs == null || outDir == null) {
            usage("--runs and --out-dir are required");
        }
        List<Run> rows = Run.read(runs);
        Results results = new Results(rows);
        Files.writeString(outDir.resolve("results.json"), Json.rows(rows), StandardCharsets.UTF_8);
        String md = Markdown.render(results, meta);
        Files.writeString(outDir.resolve("report.md"), md, StandardCharsets.UTF_8);
        Files.writeString(outDir.resolve("report.html"), Html.render(results, meta), StandardCharsets.UTF_8);
        System.out.print(Markdown.console(results));
    }

    static void usage(String problem) {
        System.err.println("ThroughputReport: " + problem);
        System.err.println("usage: java ThroughputReport.java --runs runs.tsv --out-dir DIR [--meta key=value ...]");
        System.exit(2);
    }
}

/** One measured wrk run and what /proc said about it. */
final class Run {
    String phase;
    String target;
    int payload;
    int connections;
    int repetition;
    int position;
    int plannedS;
    long requests;
    double durationS;
    long bytes;
    long errConnect;
    long errRead;
    long errWrite;
    long errStatus;
    long errTimeout;
    Double meanMs;
    Double p50Ms;
    Double p75Ms;
    Double p90Ms;
    Double p95Ms;
    Double p99Ms;
    Double maxMs;
    Long proxyUserTicks;
    Long proxySysTicks;
    long upstreamTicks;
    long wrkTicks;
    long machineBusyTicks;
    long machineTotalTicks;
    double wallS;
    Long rssKb;
    Long fds;
    /** Connections the static backend accepted during the run: a proxy's new upstream connections. */
    Long upstreamConnects;
    /** A JVM proxy's CPU in JIT compiler threads, and in GC threads plus the VM thread. */
    Long jitTicks;
    Long gcTicks;
    /** Connections accepted anywhere on the machine during the run (PassiveOpens). */
    Long machineAccepts;
    int hz;
    String note;

    static List<Run> read(Path tsv) throws IOException {
        List<String> lines = Files.readAllLines(tsv, StandardCharsets.UTF_8);
        if (lines.isEmpty()) {
            return List.of();
        }
        List<String> header = Arrays.asList(lines.get(0).split("\t", -1));
        List<Run> runs = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            if (line.isBlank()) {
                continue;
            }
            String[] cells = line.split("\t", -1);
            Map<String, String> m = new LinkedHashMap<>();
            for (int i = 0; i < header.size(); i++) {
                m.put(header.get(i), i < cells.length ? cells[i] : "");
            }
            runs.add(of(m));
        }
        return runs;
    }

    private static Run of(Map<String, String> m) {
        Run r = new Run();
        r.phase = m.get("phase");
        r.target = m.get("target");
        r.payload = (int) num(m, "payload");
        r.connections = (int) num(m, "connections");
        r.repetition = (int) num(m, "repetition");
        r.position = (int) num(m, "position");
        r.plannedS = (int) num(m, "planned_s");
        r.requests = num(m, "requests");
        r.durationS = num(m, "duration_us") / 1e6;
        r.bytes = num(m, "bytes");
        r.errConnect = num(m, "err_connect");
        r.errRead = num(m, "err_read");
        r.errWrite = num(m, "err_write");
        r.errStatus = num(m, "err_status");
        r.errTimeout = num(m, "err_timeout");
        r.meanMs = ms(m, "mean_us");
        r.p50Ms = ms(m, "p50_us");
        r.p75Ms = ms(m, "p75_us");
        r.p90Ms = ms(m, "p90_us");
        r.p95Ms = ms(m, "p95_us");
        r.p99Ms = ms(m, "p99_us");
        r.maxMs = ms(m, "max_us");
        r.proxyUserTicks = optional(m, "proxy_user_ticks");
        r.proxySysTicks = optional(m, "proxy_sys_ticks");
        r.upstreamTicks = num(m, "upstream_ticks");
        r.wrkTicks = num(m, "wrk_ticks");
        r.machineBusyTicks = num(m, "machine_busy_ticks");
        r.machineTotalTicks = num(m, "machine_total_ticks");
        r.wallS = num(m, "wall_us") / 1e6;
        r.rssKb = optional(m, "rss_kb");
        r.fds = optional(m, "fds");
        r.upstreamConnects = optional(m, "upstream_connects");
        r.jitTicks = optional(m, "proxy_jit_ticks");
        r.machineAccepts = optional(m, "machine_accepts");
        r.gcTicks = optional(m, "proxy_gc_ticks");
        r.hz = (int) num(m, "hz");
        r.note = m.getOrDefault("note", "");
        return r;
    }

    private static long num(Map<String, String> m, String key) {
        Long v = optional(m, key);
        return v == null ? 0 : v;
    }

    private static Long optional(Map<String, String> m, String key) {
        String v = m.get(key);
        if (v == null || v.isEmpty() || v.equals("-")) {
            return null;
        }
        return (long) Double.parseDouble(v);
    }

    private static Double ms(Map<String, String> m, String key) {
        String v = m.get(key);
        if (v == null || v.isEmpty() || v.equals("-")) {
            return null;
        }
        return Double.parseDouble(v) / 1000.0;
    }

    double rps() {
        return durationS > 0 ? requests / durationS : 0;
    }

    long ko() {
        return errStatus + errConnect + errRead + errWrite + errTimeout;
    }

    long ok() {
        return Math.max(0, requests - errStatus);
    }

    private double ticksToUs(long ticks) {
        return ticks * 1e6 / (hz > 0 ? hz : 100);
    }

    /** The proxy's own CPU time per completed request, user plus system; null for direct. */
    Double cpuUsPerReq() {
        if (proxyUserTicks == null || requests == 0) {
            return null;
        }
        return ticksToUs(proxyUserTicks + proxySysTicks) / requests;
    }

    Double cpuUserUsPerReq() {
        return proxyUserTicks == null || requests == 0 ? null : ticksToUs(proxyUserTicks) / requests;
    }

    Double cpuSysUsPerReq() {
        return proxySysTicks == null || requests == 0 ? null : ticksToUs(proxySysTicks) / requests;
    }

    Double jitUsPerReq() {
        return jitTicks == null || requests == 0 ? null : ticksToUs(jitTicks) / requests;
    }

    Double gcUsPerReq() {
        return gcTicks == null || requests == 0 ? null : ticksToUs(gcTicks) / requests;
    }

    /**
     * Matrix only: accepted connections beyond wrk's own and the proxy's new upstream ones, i.e. clients that
     * had to reconnect because their connection was closed (or someone else's connections on the machine).
     */
    Long clientReconnects() {
        if (!phase.equals("matrix") || machineAccepts == null || upstreamConnects == null) {
            return null;
        }
        // wrk opens one probe connection before its workers' connections; direct counts it at the backend too.
        long expected = target.equals("direct") ? upstreamConnects : connections + 1 + upstreamConnects;
        return Math.max(0, machineAccepts - expected);
    }

    Double upstreamCpuUsPerReq() {
        return requests == 0 ? null : ticksToUs(upstreamTicks) / requests;
    }

    Double wrkCpuUsPerReq() {
        return requests == 0 ? null : ticksToUs(wrkTicks) / requests;
    }

    /** The machine's busy time not spent by wrk, the proxy or the upstream, as a share of all its CPU time. */
    double otherCpuPct() {
        long mine = wrkTicks + upstreamTicks + (proxyUserTicks == null ? 0 : proxyUserTicks + proxySysTicks);
        return machineTotalTicks > 0 ? Math.max(0, 100.0 * (machineBusyTicks - mine) / machineTotalTicks) : 0;
    }

    double machineBusyPct() {
        return machineTotalTicks > 0 ? 100.0 * machineBusyTicks / machineTotalTicks : 0;
    }

    Double rssMb() {
        return rssKb == null ? null : rssKb / 1024.0;
    }

    Double responseBytes() {
        return requests == 0 ? null : (double) bytes / requests;
    }

    String scenario() {
        return phase.equals("scale")
                ? "scale " + connections + " connections, 500 ms upstream"
                : "matrix " + Fmt.size(payload) + " × " + connections;
    }
}

/** Statistics of one target in one cell over its repetitions. */
record Cell(String target, List<Run> runs) {
    Stat rps() {
        return Stat.of(runs, Run::rps);
    }

    Stat cpu() {
        return Stat.of(runs, Run::cpuUsPerReq);
    }

    Stat p50() {
        return Stat.of(runs, r -> r.p50Ms);
    }

    Stat p99() {
        return Stat.of(runs, r -> r.p99Ms);
    }

    Stat rss() {
        return Stat.of(runs, Run::rssMb);
    }

    Stat fds() {
        return Stat.of(runs, r -> r.fds == null ? null : (double) r.fds);
    }

    Stat upstreamConnects() {
        return Stat.of(runs, r -> r.upstreamConnects == null ? null : (double) r.upstreamConnects);
    }

    Stat reconnects() {
        return Stat.of(runs, r -> r.clientReconnects() == null ? null : (double) r.clientReconnects());
    }

    Stat upstreamCpu() {
        return Stat.of(runs, Run::upstreamCpuUsPerReq);
    }

    Stat other() {
        return Stat.of(runs, Run::otherCpuPct);
    }

    long ko() {
        return runs.stream().mapToLong(Run::ko).sum();
    }

    long requests() {
        return runs.stream().mapToLong(r -> r.requests).sum();
    }

    String notes() {
        return runs.stream().map(r -> r.note).filter(n -> n != null && !n.isBlank()).distinct()
                .collect(Collectors.joining("; "));
    }
}

/** Median, min and max of the values present; null when there are none. */
record Stat(Double median, Double min, Double max, int n) {
    static Stat of(List<Run> runs, Function<Run, Double> f) {
        double[] v = runs.stream().map(f).filter(x -> x != null && !x.isNaN()).mapToDouble(Double::doubleValue)
                .sorted().toArray();
        if (v.length == 0) {
            return new Stat(null, null, null, 0);
        }
        double median = v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
        return new Stat(median, v[0], v[v.length - 1], v.length);
    }

    boolean present() {
        return median != null;
    }
}

/** The runs grouped by phase, payload, connections and target. */
final class Results {
    /** Other work above this share of the machine makes a run's req/s and latency unreliable. */
    static final double NOISY_PCT = 25;
    final List<Run> runs;
    final List<String> targets;
    final List<Integer> payloads;
    final List<Integer> matrixConnections;
    final List<Integer> scaleConnections;
    private final Map<String, Cell> cells = new LinkedHashMap<>();

    Results(List<Run> runs) {
        this.runs = runs;
        TreeSet<String> seen = new TreeSet<>(Comparator.comparingInt(t -> {
            int i = ThroughputReport.TARGET_ORDER.indexOf(t);
            return i < 0 ? 99 : i;
        }));
        runs.forEach(r -> seen.add(r.target));
        targets = List.copyOf(seen);
        payloads = runs.stream().filter(r -> r.phase.equals("matrix")).map(r -> r.payload).distinct().sorted().toList();
        matrixConnections = runs.stream().filter(r -> r.phase.equals("matrix")).map(r -> r.connections).distinct()
                .sorted().toList();
        scaleConnections = runs.stream().filter(r -> r.phase.equals("scale")).map(r -> r.connections).distinct()
                .sorted().toList();
        Map<String, List<Run>> grouped = runs.stream().collect(Collectors.groupingBy(
                r -> key(r.phase, r.phase.equals("scale") ? 0 : r.payload, r.connections, r.target),
                LinkedHashMap::new, Collectors.toList()));
        grouped.forEach((k, v) -> cells.put(k, new Cell(v.get(0).target, v)));
    }

    private static String key(String phase, int payload, int connections, String target) {
        return phase + "/" + payload + "/" + connections + "/" + target;
    }

    Cell matrix(int payload, int connections, String target) {
        return cells.get(key("matrix", payload, connections, target));
    }

    Cell scale(int connections, String target) {
        return cells.get(key("scale", 0, connections, target));
    }

    boolean has(String target) {
        return targets.contains(target);
    }

    /** median(a) / median(b) of one statistic, or null. */
    static Double ratio(Cell a, Cell b, Function<Cell, Stat> stat) {
        if (a == null || b == null) {
            return null;
        }
        Stat x = stat.apply(a);
        Stat y = stat.apply(b);
        if (!x.present() || !y.present() || y.median() == 0) {
            return null;
        }
        return x.median() / y.median();
    }

    /** The targets for Kodiak, checked cell by cell against nginx (matrix) and direct (scale). */
    List<String[]> verdicts() {
        List<String[]> out = new ArrayList<>();
        if (!has("kodiak")) {
            return out;
        }
        if (has("nginx")) {
            int cellsTotal = 0, rpsOk = 0, cpuOk = 0, p99Total = 0, p99Ok = 0;
            List<String> rpsMiss = new ArrayList<>(), cpuMiss = new ArrayList<>(), p99Miss = new ArrayList<>();
            for (int p : payloads) {
                for (int c : matrixConnections) {
                    Cell k = matrix(p, c, "kodiak");
                    Cell n = matrix(p, c, "nginx");
                    if (k == null || n == null) {
                        continue;
                    }
                    String where = Fmt.size(p) + "×" + c;
                    cellsTotal++;
                    Double r = ratio(k, n, Cell::rps);
                    if (r != null && r >= 1) {
                        rpsOk++;
                    } else {
                        rpsMiss.add(where + " (" + Fmt.ratio(r) + ")");
                    }
                    Double cr = ratio(k, n, Cell::cpu);
                    if (cr != null && cr <= 1) {
                        cpuOk++;
                    } else {
                        cpuMiss.add(where + " (" + Fmt.ratio(cr) + ")");
                    }
                    if (c <= 640) {
                        p99Total++;
                        Stat kp = k.p99();
                        Stat np = n.p99();
                        if (kp.present() && np.present() && kp.median() <= np.median() + 1) {
                            p99Ok++;
                        } else {
                            p99Miss.add(where + " (+" + (kp.present() && np.present()
                                    ? Fmt.ms(kp.median() - np.median()) : "?") + " ms)");
                        }
                    }
                }
            }
            if (cellsTotal > 0) {
                out.add(verdict("req/s ≥ nginx's (median), every cell", rpsOk, cellsTotal, rpsMiss));
                out.add(verdict("CPU/request ≤ nginx's (median), every cell", cpuOk, cellsTotal, cpuMiss));
                if (p99Total > 0) {
                    out.add(verdict("p99 ≤ nginx's + 1 ms up to 640 connections", p99Ok, p99Total, p99Miss));
                }
            }
        }
        int cellsTotal = 0, clean = 0;
        List<String> errMiss = new ArrayList<>();
        for (int p : payloads) {
            for (int c : matrixConnections) {
                Cell k = matrix(p, c, "kodiak");
                if (k == null) {
                    continue;
                }
                cellsTotal++;
                if (k.ko() == 0 && k.requests() > 0) {
                    clean++;
                } else {
                    errMiss.add(Fmt.size(p) + "×" + c + " (" + k.ko() + ")");
                }
            }
        }
        for (int c : scaleConnections) {
            Cell k = scale(c, "kodiak");
            if (k == null) {
                continue;
            }
            cellsTotal++;
            if (k.ko() == 0 && k.requests() > 0) {
                clean++;
            } else {
                errMiss.add("scale " + c + " (" + k.ko() + ")");
            }
        }
        if (cellsTotal > 0) {
            out.add(verdict("zero errors everywhere", clean, cellsTotal, errMiss));
        }
        Integer top = scaleConnections.isEmpty() ? null : scaleConnections.get(scaleConnections.size() - 1);
        if (top != null && scale(top, "kodiak") != null) {
            Cell k = scale(top, "kodiak");
            Cell d = scale(top, "direct");
            Double r = ratio(k, d, Cell::rps);
            if (d != null) {
                out.add(verdict("at " + top + " connections (500 ms upstream), req/s ≥ 0.95 × direct's",
                        r != null && r >= 0.95 ? 1 : 0, 1, r != null && r >= 0.95 ? List.of() : List.of(Fmt.ratio(r))));
            }
            Stat rss = k.rss();
            boolean ok = rss.present() && rss.max() <= 256;
            out.add(verdict("at " + top + " connections, resident memory ≤ 256 MB", ok ? 1 : 0, 1,
                    ok ? List.of() : List.of((rss.present() ? Fmt.num(rss.max()) : "?") + " MB")));
        }
        return out;
    }

    private static String[] verdict(String what, int ok, int total, List<String> misses) {
        String status = ok == total ? "met" : "not met";
        String detail = misses.isEmpty() ? "" : "misses: " + String.join(", ", misses);
        return new String[] {what, status + " (" + ok + "/" + total + ")", detail};
    }
}

final class Fmt {
    static String size(int bytes) {
        if (bytes >= 1024 && bytes % 1024 == 0) {
            return bytes / 1024 + " KB";
        }
        return bytes + " B";
    }

    static String num(Double v) {
        if (v == null) {
            return "—";
        }
        return String.format(Locale.ROOT, "%,.0f", v);
    }

    static String us(Double v) {
        return v == null ? "—" : String.format(Locale.ROOT, "%.1f", v);
    }

    static String ms(Double v) {
        if (v == null) {
            return "—";
        }
        return String.format(Locale.ROOT, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : "%.2f", v);
    }

    static String ratio(Double v) {
        return v == null ? "—" : String.format(Locale.ROOT, "%.2f", v);
    }

    static String pct(Double v) {
        return v == null ? "—" : String.format(Locale.ROOT, "%.0f %%", v);
    }

    /** "median [min–max]" when there are several repetitions, else the one value. */
    static String range(Stat s, Function<Double, String> f) {
        if (!s.present()) {
            return "—";
        }
        if (s.n() == 1 || f.apply(s.min()).equals(f.apply(s.max()))) {
            return f.apply(s.median());
        }
        return f.apply(s.median()) + " [" + f.apply(s.min()) + "–" + f.apply(s.max()) + "]";
    }
}

/** A table once, written as Markdown or HTML. */
final class Table {
    final List<String> header;
    final List<List<String>> rows = new ArrayList<>();
    /** Columns before this index hold text and align left; the rest hold numbers. */
    private int textColumns = 1;

    Table(String... header) {
        this.header = List.of(header);
    }

    Table textColumns(int n) {
        textColumns = n;
        return this;
    }

    Table add(String... cells) {
        rows.add(List.of(cells));
        return this;
    }

    String markdown() {
        StringBuilder s = new StringBuilder();
        s.append("| ").append(String.join(" | ", header)).append(" |\n|");
        for (int i = 0; i < header.size(); i++) {
            s.append(i < textColumns ? "---|" : "---:|");
        }
        s.append('\n');
        for (List<String> row : rows) {
            s.append("| ").append(row.stream().map(c -> c.replace("|", "\\|")).collect(Collectors.joining(" | ")))
                    .append(" |\n");
        }
        return s.toString();
    }

    String html() {
        StringBuilder s = new StringBuilder("<table><thead><tr>");
        header.forEach(h -> s.append("<th>").append(Html.esc(h)).append("</th>"));
        s.append("</tr></thead><tbody>\n");
        for (List<String> row : rows) {
            s.append("<tr>");
            for (int i = 0; i < row.size(); i++) {
                String c = row.get(i);
                boolean text = i < textColumns;
                s.append(text ? "<td class=l>" : "<td>").append(Html.esc(c)).append("</td>");
            }
            s.append("</tr>\n");
        }
        return s.append("</tbody></table>\n").toString();
    }
}

/** The tables, shared by report.md, report.html and the console. */
final class Tables {
    private Tables() {
    }

    /** One line per payload × connections: the figures a tuner looks at first. */
    static Table summary(Results r) {
        List<String> h = new ArrayList<>(List.of("payload × conns"));
        for (String t : r.targets) {
            h.add(ThroughputReport.LABEL.get(t) + " req/s");
        }
        boolean kn = r.has("kodiak") && r.has("nginx");
        if (kn) {
            h.add("Kodiak/nginx");
        }
        List<String> proxies = r.targets.stream().filter(t -> !t.equals("direct")).toList();
        if (!proxies.isEmpty()) {
            h.add("CPU µs/req " + proxies.stream().map(ThroughputReport.LABEL::get).collect(Collectors.joining("/")));
            h.add("p99 ms " + proxies.stream().map(ThroughputReport.LABEL::get).collect(Collectors.joining("/")));
        }
        h.add("errors");
        h.add("other CPU");
        Table table = new Table(h.toArray(String[]::new));
        for (int p : r.payloads) {
            for (int c : r.matrixConnections) {
                List<String> row = new ArrayList<>(List.of(Fmt.size(p) + " × " + c));
                long ko = 0;
                List<Run> all = new ArrayList<>();
                for (String t : r.targets) {
                    Cell cell = r.matrix(p, c, t);
                    row.add(cell == null ? "—" : Fmt.num(cell.rps().median()));
                    if (cell != null) {
                        ko += cell.ko();
                        all.addAll(cell.runs());
                    }
                }
                if (kn) {
                    row.add(Fmt.ratio(Results.ratio(r.matrix(p, c, "kodiak"), r.matrix(p, c, "nginx"), Cell::rps)));
                }
                if (!proxies.isEmpty()) {
                    row.add(proxies.stream().map(t -> r.matrix(p, c, t)).map(x -> x == null ? "—" : Fmt.us(x.cpu().median()))
                            .collect(Collectors.joining(" / ")));
                    row.add(proxies.stream().map(t -> r.matrix(p, c, t)).map(x -> x == null ? "—" : Fmt.ms(x.p99().median()))
                            .collect(Collectors.joining(" / ")));
                }
                row.add(Long.toString(ko));
                row.add(Fmt.pct(Stat.of(all, Run::otherCpuPct).median()));
                table.add(row.toArray(String[]::new));
            }
        }
        return table;
    }

    static Table rps(Results r, int p) {
        List<String> h = new ArrayList<>(List.of("connections"));
        r.targets.forEach(t -> h.add(ThroughputReport.LABEL.get(t)));
        if (r.has("kodiak") && r.has("nginx")) {
            h.add("Kodiak/nginx");
        }
        if (r.has("kodiak") && r.has("haproxy")) {
            h.add("Kodiak/HAProxy");
        }
        Table table = new Table(h.toArray(String[]::new));
        for (int c : r.matrixConnections) {
            List<String> row = new ArrayList<>(List.of(Integer.toString(c)));
            for (String t : r.targets) {
                Cell cell = r.matrix(p, c, t);
                row.add(cell == null ? "—" : Fmt.range(cell.rps(), Fmt::num));
            }
            if (r.has("kodiak") && r.has("nginx")) {
                row.add(Fmt.ratio(Results.ratio(r.matrix(p, c, "kodiak"), r.matrix(p, c, "nginx"), Cell::rps)));
            }
            if (r.has("kodiak") && r.has("haproxy")) {
                row.add(Fmt.ratio(Results.ratio(r.matrix(p, c, "kodiak"), r.matrix(p, c, "haproxy"), Cell::rps)));
            }
            table.add(row.toArray(String[]::new));
        }
        return table;
    }

    static Table cpu(Results r, int p) {
        List<String> proxies = r.targets.stream().filter(t -> !t.equals("direct")).toList();
        List<String> h = new ArrayList<>(List.of("connections"));
        proxies.forEach(t -> h.add(ThroughputReport.LABEL.get(t)));
        if (r.has("kodiak") && r.has("nginx")) {
            h.add("Kodiak/nginx");
        }
        if (r.has("kodiak")) {
            h.add("of Kodiak's: JIT / GC");
        }
        h.add("backend µs/req (median of all)");
        Table table = new Table(h.toArray(String[]::new));
        for (int c : r.matrixConnections) {
            List<String> row = new ArrayList<>(List.of(Integer.toString(c)));
            List<Run> all = new ArrayList<>();
            for (String t : proxies) {
                Cell cell = r.matrix(p, c, t);
                row.add(cell == null ? "—" : Fmt.range(cell.cpu(), Fmt::us));
            }
            for (String t : r.targets) {
                Cell cell = r.matrix(p, c, t);
                if (cell != null) {
                    all.addAll(cell.runs());
                }
            }
            if (r.has("kodiak") && r.has("nginx")) {
                row.add(Fmt.ratio(Results.ratio(r.matrix(p, c, "kodiak"), r.matrix(p, c, "nginx"), Cell::cpu)));
            }
            if (r.has("kodiak")) {
                Cell k = r.matrix(p, c, "kodiak");
                row.add(k == null ? "—" : Fmt.us(Stat.of(k.runs(), Run::jitUsPerReq).median()) + " / "
                        + Fmt.us(Stat.of(k.runs(), Run::gcUsPerReq).median()));
            }
            row.add(Fmt.us(Stat.of(all, Run::upstreamCpuUsPerReq).median()));
            table.add(row.toArray(String[]::new));
        }
        return table;
    }

    static Table latency(Results r, int p) {
        List<String> h = new ArrayList<>(List.of("connections"));
        r.targets.forEach(t -> h.add(ThroughputReport.LABEL.get(t) + " p50 / p99"));
        Table table = new Table(h.toArray(String[]::new));
        for (int c : r.matrixConnections) {
            List<String> row = new ArrayList<>(List.of(Integer.toString(c)));
            for (String t : r.targets) {
                Cell cell = r.matrix(p, c, t);
                row.add(cell == null ? "—" : Fmt.ms(cell.p50().median()) + " / " + Fmt.range(cell.p99(), Fmt::ms));
            }
            table.add(row.toArray(String[]::new));
        }
        return table;
    }

    static Table errorsAndMemory(Results r, int p) {
        List<String> proxies = r.targets.stream().filter(t -> !t.equals("direct")).toList();
        List<String> h = new ArrayList<>(List.of("connections"));
        r.targets.forEach(t -> h.add(ThroughputReport.LABEL.get(t) + " errors"));
        proxies.forEach(t -> h.add(ThroughputReport.LABEL.get(t) + " RSS MB"));
        proxies.forEach(t -> h.add(ThroughputReport.LABEL.get(t) + " new upstream conns"));
        r.targets.forEach(t -> h.add(ThroughputReport.LABEL.get(t) + " client reconnects"));
        h.add("other CPU");
        Table table = new Table(h.toArray(String[]::new));
        for (int c : r.matrixConnections) {
            List<String> row = new ArrayList<>(List.of(Integer.toString(c)));
            List<Run> all = new ArrayList<>();
            for (String t : r.targets) {
                Cell cell = r.matrix(p, c, t);
                row.add(cell == null ? "—" : Long.toString(cell.ko()));
                if (cell != null) {
                    all.addAll(cell.runs());
                }
            }
            for (String t : proxies) {
                Cell cell = r.matrix(p, c, t);
                row.add(cell == null ? "—" : Fmt.num(cell.rss().median()));
            }
            for (String t : proxies) {
                Cell cell = r.matrix(p, c, t);
                row.add(cell == null ? "—" : Fmt.range(cell.upstreamConnects(), Fmt::num));
            }
            for (String t : r.targets) {
                Cell cell = r.matrix(p, c, t);
                row.add(cell == null ? "—" : Fmt.num(cell.reconnects().median()));
            }
            row.add(Fmt.pct(Stat.of(all, Run::otherCpuPct).median()));
            table.add(row.toArray(String[]::new));
        }
        return table;
    }

    static Table scale(Results r) {
        Table table = new Table("connections", "target", "req/s", "of direct", "of ceiling", "errors", "p50 ms",
                "p99 ms", "RSS MB", "open files", "CPU µs/req", "other CPU").textColumns(2);
        for (int c : r.scaleConnections) {
            Cell direct = r.scale(c, "direct");
            double ceiling = c / ThroughputReport.SCALE_DELAY_S;
            for (String t : r.targets) {
                Cell cell = r.scale(c, t);
                if (cell == null) {
                    continue;
                }
                Stat rps = cell.rps();
                table.add(Integer.toString(c), ThroughputReport.LABEL.get(t), Fmt.range(rps, Fmt::num),
                        Fmt.ratio(Results.ratio(cell, direct, Cell::rps)),
                        rps.present() ? Fmt.ratio(rps.median() / ceiling) : "—",
                        Long.toString(cell.ko()), Fmt.ms(cell.p50().median()), Fmt.range(cell.p99(), Fmt::ms),
                        Fmt.num(cell.rss().median()), Fmt.num(cell.fds().median()), Fmt.us(cell.cpu().median()),
                        Fmt.pct(cell.other().median()));
            }
        }
        return table;
    }

    static Table verdicts(Results r) {
        Table table = new Table("Kodiak target (issue 7)", "result", "where it falls short").textColumns(3);
        r.verdicts().forEach(table::add);
        return table;
    }

    /** How many runs shared the machine with someone else's work; null when none did. */
    static String disturbance(Results r) {
        List<Run> noisy = r.runs.stream().filter(x -> x.otherCpuPct() > Results.NOISY_PCT).toList();
        if (noisy.isEmpty()) {
            return null;
        }
        return noisy.size() + " of " + r.runs.size() + " runs shared the machine with other work (other CPU above "
                + (int) Results.NOISY_PCT + " %, up to " + Fmt.pct(noisy.stream().mapToDouble(Run::otherCpuPct).max()
                .orElse(0)) + "): their req/s and latency say more about the machine than the proxy; compare CPU"
                + " µs/request, and rerun on a quiet machine (--wait-quiet) before trusting small differences.";
    }

    static List<String> notes(Results r) {
        return r.runs.stream().filter(x -> x.note != null && !x.note.isBlank())
                .map(x -> x.scenario() + " " + x.target + " rep " + x.repetition + ": " + x.note).toList();
    }
}

final class Markdown {
    private Markdown() {
    }

    static String render(Results r, Map<String, String> meta) {
        StringBuilder s = new StringBuilder("# Throughput: Kodiak, nginx and HAProxy\n\n");
        meta.forEach((k, v) -> s.append("- **").append(k).append("**: ").append(v).append('\n'));
        s.append("\nPreliminary unless the machine was otherwise idle: compare rows of the same run. Cells show the")
                .append(" median over repetitions, [min–max] when they differ. CPU µs/req is the proxy's own CPU time")
                .append(" (user + system, all its processes, from /proc) divided by the requests wrk completed.")
                .append(" Errors are wrk's socket errors (connect, read, write, timeout) plus non-2xx/3xx answers.")
                .append(" Other CPU is the machine's busy time not spent by wrk, the proxy or the backend: above a few")
                .append(" per cent, someone else was using the machine during that cell.\n\n");
        if (!r.payloads.isEmpty()) {
            s.append("## Summary\n\n").append(Tables.summary(r).markdown()).append('\n');
        }
        if (!r.scaleConnections.isEmpty()) {
            s.append("## Scale: 500 ms upstream (stub, async), ceiling = connections / 0.5 s\n\n")
                    .append(Tables.scale(r).markdown()).append('\n');
        }
        if (!r.verdicts().isEmpty()) {
            s.append("## Kodiak against the issue's targets\n\n").append(Tables.verdicts(r).markdown()).append('\n');
        }
        if (Tables.disturbance(r) != null) {
            s.append("**Warning:** ").append(Tables.disturbance(r)).append("\n\n");
        }
        for (int p : r.payloads) {
            s.append("## ").append(Fmt.size(p)).append(" request and response\n\n");
            s.append("### req/s\n\n").append(Tables.rps(r, p).markdown()).append('\n');
            s.append("### Proxy CPU µs per request\n\n").append(Tables.cpu(r, p).markdown()).append('\n');
            s.append("### Latency, ms (closed loop: at saturation this is queueing)\n\n")
                    .append(Tables.latency(r, p).markdown()).append('\n');
            s.append("### Errors, resident memory and upstream connections opened during the run\n\n").append(Tables.errorsAndMemory(r, p).markdown()).append('\n');
        }
        List<String> notes = Tables.notes(r);
        if (!notes.isEmpty()) {
            s.append("## Notes from the runs\n\n");
            notes.forEach(n -> s.append("- ").append(n).append('\n'));
            s.append('\n');
        }
        s.append("Every run is a row of `results.json`; raw counters in `runs.tsv`, wrk output in `logs/wrk/`.\n");
        return s.toString();
    }

    static String console(Results r) {
        StringBuilder s = new StringBuilder();
        if (!r.payloads.isEmpty()) {
            s.append(Tables.summary(r).markdown()).append('\n');
        }
        if (!r.scaleConnections.isEmpty()) {
            s.append(Tables.scale(r).markdown()).append('\n');
        }
        if (!r.verdicts().isEmpty()) {
            s.append(Tables.verdicts(r).markdown());
        }
        if (Tables.disturbance(r) != null) {
            s.append("\nWarning: ").append(Tables.disturbance(r)).append('\n');
        }
        return s.toString();
    }
}

/** report.html: the tables plus inline SVG charts; nothing is loaded from anywhere. */
final class Html {
    private Html() {
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    static String render(Results r, Map<String, String> meta) {
        StringBuilder s = new StringBuilder("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>\n")
                .append("<title>Throughput: Kodiak, nginx and HAProxy</title>\n<style>\n")
                .append("body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;margin:24px;color:#212529;max-width:1400px}\n")
                .append("h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #dee2e6}h3{font-size:15px}\n")
                .append("table{border-collapse:collapse;font-size:12.5px;margin:8px 0 16px}\n")
                .append("th,td{border:1px solid #dee2e6;padding:3px 7px;text-align:right;white-space:nowrap}td.l{text-align:left}\n")
                .append("th{background:#f1f3f5;text-align:left}p.warn{background:#fff3bf;padding:6px 10px;font-size:13px;max-width:1000px}ul.meta{font-size:13px}.charts{display:flex;flex-wrap:wrap;gap:12px}\n")
                .append(".legend span{display:inline-block;margin-right:16px;font-size:13px}\n")
                .append(".legend i{display:inline-block;width:22px;height:3px;vertical-align:middle;margin-right:5px}\n")
                .append("svg text{font-family:inherit}p.note{font-size:13px;max-width:1000px}\n")
                .append("</style></head><body>\n<h1>Throughput: Kodiak, nginx and HAProxy</h1>\n<ul class=meta>\n");
        meta.forEach((k, v) -> s.append("<li><b>").append(esc(k)).append("</b>: ").append(esc(v)).append("</li>\n"));
        s.append("</ul>\n<p class=note>Cells show the median over repetitions, [min–max] when they differ; the charts")
                .append(" draw the median with a bar from min to max. CPU µs/req is the proxy's own CPU time per")
                .append(" completed request, from /proc. Other CPU is busy time of the machine not spent by wrk, the")
                .append(" proxy or the backend.</p>\n");
        s.append("<div class=legend>");
        for (String t : r.targets) {
            s.append("<span><i style=\"background:").append(ThroughputReport.COLOR.get(t)).append("\"></i>")
                    .append(esc(ThroughputReport.LABEL.get(t))).append("</span>");
        }
        s.append("</div>\n");
        if (Tables.disturbance(r) != null) {
            s.append("<p class=warn><b>Warning:</b> ").append(esc(Tables.disturbance(r))).append("</p>\n");
        }
        if (!r.verdicts().isEmpty()) {
            s.append("<h2>Kodiak against the issue's targets</h2>\n").append(Tables.verdicts(r).html());
        }
        if (!r.payloads.isEmpty()) {
            s.append("<h2>req/s against connections</h2>\n<div class=charts>\n");
            for (int p : r.payloads) {
                s.append(chart(r, p, Fmt.size(p) + ": req/s", "req/s", false, false, Cell::rps));
            }
            s.append("</div>\n<h2>Proxy CPU µs per request</h2>\n<div class=charts>\n");
            for (int p : r.payloads) {
                s.append(chart(r, p, Fmt.size(p) + ": CPU µs/request", "µs", false, true, Cell::cpu));
            }
            s.append("</div>\n<h2>p99 latency (log scale; closed loop, so queueing at saturation)</h2>\n<div class=charts>\n");
            for (int p : r.payloads) {
                s.append(chart(r, p, Fmt.size(p) + ": p99 ms", "ms", true, false, Cell::p99));
            }
            s.append("</div>\n<h2>Summary</h2>\n").append(Tables.summary(r).html());
        }
        if (!r.scaleConnections.isEmpty()) {
            s.append("<h2>Scale: 500 ms upstream, ceiling = connections / 0.5 s</h2>\n<div class=charts>\n")
                    .append(scaleChart(r)).append("</div>\n").append(Tables.scale(r).html());
        }
        for (int p : r.payloads) {
            s.append("<h2>").append(esc(Fmt.size(p))).append(" request and response</h2>\n")
                    .append("<h3>req/s</h3>\n").append(Tables.rps(r, p).html())
                    .append("<h3>Proxy CPU µs per request</h3>\n").append(Tables.cpu(r, p).html())
                    .append("<h3>Latency, ms</h3>\n").append(Tables.latency(r, p).html())
                    .append("<h3>Errors, resident memory and upstream connections opened during the run</h3>\n").append(Tables.errorsAndMemory(r, p).html());
        }
        List<String> notes = Tables.notes(r);
        if (!notes.isEmpty()) {
            s.append("<h2>Notes from the runs</h2>\n<ul>\n");
            notes.forEach(n -> s.append("<li>").append(esc(n)).append("</li>\n"));
            s.append("</ul>\n");
        }
        return s.append("</body></html>\n").toString();
    }

    private static String chart(Results r, int payload, String title, String unit, boolean logY, boolean proxiesOnly,
            Function<Cell, Stat> stat) {
        List<String> xs = r.matrixConnections.stream().map(String::valueOf).toList();
        List<Chart.Series> series = new ArrayList<>();
        for (String t : r.targets) {
            if (proxiesOnly && t.equals("direct")) {
                continue;
            }
            List<Stat> points = new ArrayList<>();
            for (int c : r.matrixConnections) {
                Cell cell = r.matrix(payload, c, t);
                points.add(cell == null ? null : stat.apply(cell));
            }
            series.add(new Chart.Series(ThroughputReport.LABEL.get(t), ThroughputReport.COLOR.get(t),
                    t.equals("direct"), points));
        }
        return new Chart(title, "connections", unit, xs, series, logY).lines();
    }

    private static String scaleChart(Results r) {
        List<String> xs = r.scaleConnections.stream().map(c -> c + " conns").toList();
        List<Chart.Series> series = new ArrayList<>();
        for (String t : r.targets) {
            List<Stat> points = new ArrayList<>();
            for (int c : r.scaleConnections) {
                Cell cell = r.scale(c, t);
                points.add(cell == null ? null : cell.rps());
            }
            series.add(new Chart.Series(ThroughputReport.LABEL.get(t), ThroughputReport.COLOR.get(t), false, points));
        }
        List<Double> ceilings = r.scaleConnections.stream().map(c -> c / ThroughputReport.SCALE_DELAY_S).toList();
        List<Chart.Series> rss = new ArrayList<>();
        for (String t : r.targets) {
            if (t.equals("direct")) {
                continue;
            }
            List<Stat> points = new ArrayList<>();
            for (int c : r.scaleConnections) {
                Cell cell = r.scale(c, t);
                points.add(cell == null ? null : cell.rss());
            }
            rss.add(new Chart.Series(ThroughputReport.LABEL.get(t), ThroughputReport.COLOR.get(t), false, points));
        }
        return new Chart("req/s (dashed: ceiling)", "", "req/s", xs, series, false).bars(ceilings)
                + new Chart("proxy resident memory, MB", "", "MB", xs, rss, false).bars(null);
    }
}

/** A small SVG chart: lines over categories (with min–max bars), or grouped bars. */
final class Chart {
    record Series(String name, String color, boolean dashed, List<Stat> points) {
    }

    static final int W = 440, H = 290, LEFT = 62, RIGHT = 14, TOP = 30, BOTTOM = 44;
    final String title, xLabel, unit;
    final List<String> xs;
    final List<Series> series;
    final boolean logY;

    Chart(String title, String xLabel, String unit, List<String> xs, List<Series> series, boolean logY) {
        this.title = title;
        this.xLabel = xLabel;
        this.unit = unit;
        this.xs = xs;
        this.series = series;
        this.logY = logY;
    }

    private double plotW() {
        return W - LEFT - RIGHT;
    }

    private double plotH() {
        return H - TOP - BOTTOM;
    }

    private double x(int i) {
        return LEFT + plotW() * (i + 0.5) / xs.size();
    }

    /** Series k's x in category i: nudged sideways so that equal values and min–max bars stay visible. */
    private double x(int i, int k) {
        double spread = Math.min(18, plotW() / xs.size() * 0.3);
        return x(i) + (series.size() <= 1 ? 0 : spread * (k / (series.size() - 1.0) - 0.5));
    }

    private double lo, hi;

    private void scale(List<Double> extra) {
        List<Double> v = new ArrayList<>();
        for (Series s : series) {
            for (Stat p : s.points()) {
                if (p != null && p.present()) {
                    v.add(p.min());
                    v.add(p.max());
                }
            }
        }
        if (extra != null) {
            v.addAll(extra);
        }
        double max = v.stream().mapToDouble(Double::doubleValue).max().orElse(1);
        double min = v.stream().mapToDouble(Double::doubleValue).filter(d -> d > 0).min().orElse(max / 10);
        if (logY) {
            lo = Math.pow(10, Math.floor(Math.log10(Math.max(min, 1e-3))));
            hi = Math.pow(10, Math.ceil(Math.log10(Math.max(max, lo * 10))));
            if (hi / lo < 10) {
                hi = lo * 10;
            }
        } else {
            lo = 0;
            hi = niceStep(max <= 0 ? 1 : max * 1.08 / 5) * 5;
            while (hi < max) {
                hi += niceStep(hi / 5);
            }
        }
    }

    private static double niceStep(double raw) {
        double mag = Math.pow(10, Math.floor(Math.log10(raw)));
        double f = raw / mag;
        return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10) * mag;
    }

    private double y(double v) {
        double t = logY ? (Math.log10(Math.max(v, lo)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))
                : (v - lo) / (hi - lo);
        return TOP + plotH() * (1 - t);
    }

    private List<Double> ticks() {
        List<Double> t = new ArrayList<>();
        if (logY) {
            for (double d = lo; d <= hi * 1.0001; d *= 10) {
                t.add(d);
                if (hi / lo <= 100) {
                    if (d * 2 < hi) {
                        t.add(d * 2);
                    }
                    if (d * 5 < hi) {
                        t.add(d * 5);
                    }
                }
            }
        } else {
            double step = niceStep(hi / 5);
            for (double d = 0; d <= hi * 1.0001; d += step) {
                t.add(d);
            }
        }
        return t;
    }

    private static String label(double v) {
        if (v >= 10000) {
            return String.format(Locale.ROOT, "%.0fk", v / 1000);
        }
        if (v >= 1000) {
            return String.format(Locale.ROOT, "%.1fk", v / 1000).replace(".0k", "k");
        }
        if (v >= 1 || v == 0) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        return String.format(Locale.ROOT, "%s", Double.toString(v).replaceAll("0+$", ""));
    }

    private StringBuilder frame() {
        StringBuilder s = new StringBuilder();
        s.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(W).append("\" height=\"").append(H)
                .append("\" viewBox=\"0 0 ").append(W).append(' ').append(H).append("\" role=img>\n")
                .append("<rect width=\"100%\" height=\"100%\" fill=\"#fff\" stroke=\"#dee2e6\"/>\n")
                .append(text(W / 2.0, 18, title, "middle", 13, "bold"));
        for (double t : ticks()) {
            double yy = y(t);
            s.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#e9ecef\"/>\n",
                    LEFT, W - RIGHT + 0.0, yy, yy));
            s.append(text(LEFT - 6, yy + 4, label(t), "end", 11, "normal"));
        }
        s.append(String.format(Locale.ROOT,
                "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%.1f\" stroke=\"#495057\"/><line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#495057\"/>\n",
                LEFT, LEFT, TOP, TOP + plotH(), LEFT, W - RIGHT, TOP + plotH(), TOP + plotH()));
        for (int i = 0; i < xs.size(); i++) {
            s.append(text(x(i), TOP + plotH() + 15, xs.get(i), "middle", 11, "normal"));
        }
        if (!xLabel.isEmpty()) {
            s.append(text(LEFT + plotW() / 2, H - 8, xLabel, "middle", 11, "normal"));
        }
        s.append(String.format(Locale.ROOT, "<text x=\"14\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\" transform=\"rotate(-90 14 %.1f)\">%s</text>\n",
                TOP + plotH() / 2, TOP + plotH() / 2, Html.esc(unit)));
        return s;
    }

    private static String text(double x, double y, String t, String anchor, int size, String weight) {
        return String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" font-weight=\"%s\" text-anchor=\"%s\">%s</text>\n",
                x, y, size, weight, anchor, Html.esc(t));
    }

    String lines() {
        scale(null);
        StringBuilder s = frame();
        for (int k = 0; k < series.size(); k++) {
            Series se = series.get(k);
            StringBuilder path = new StringBuilder();
            for (int i = 0; i < se.points().size(); i++) {
                Stat p = se.points().get(i);
                if (p == null || !p.present()) {
                    continue;
                }
                double px = x(i, k);
                path.append(path.length() == 0 ? "M" : " L").append(String.format(Locale.ROOT, "%.1f %.1f", px, y(p.median())));
                if (p.n() > 1) {
                    s.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.5\" opacity=\"0.6\"/>\n",
                            px, px, y(p.min()), y(p.max()), se.color()));
                }
                s.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>%s %s: %s</title></circle>\n",
                        px, y(p.median()), se.color(), Html.esc(se.name()), Html.esc(xs.get(i)), label(p.median())));
            }
            if (path.length() > 0) {
                s.append("<path d=\"").append(path).append("\" fill=\"none\" stroke=\"").append(se.color())
                        .append("\" stroke-width=\"2\"").append(se.dashed() ? " stroke-dasharray=\"5 4\"" : "").append("/>\n");
            }
        }
        return s.append("</svg>\n").toString();
    }

    String bars(List<Double> ceilings) {
        scale(ceilings);
        StringBuilder s = frame();
        int n = Math.max(1, series.size());
        double group = plotW() / xs.size();
        double bw = group * 0.7 / n;
        for (int i = 0; i < xs.size(); i++) {
            double x0 = LEFT + group * i + group * 0.15;
            for (int k = 0; k < series.size(); k++) {
                Series se = series.get(k);
                Stat p = se.points().get(i);
                if (p == null || !p.present()) {
                    continue;
                }
                double bx = x0 + k * bw;
                s.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%s %s: %s</title></rect>\n",
                        bx, y(p.median()), bw - 2, TOP + plotH() - y(p.median()), se.color(), Html.esc(se.name()),
                        Html.esc(xs.get(i)), label(p.median())));
                if (p.n() > 1) {
                    s.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#212529\"/>\n",
                            bx + bw / 2 - 1, bx + bw / 2 - 1, y(p.min()), y(p.max())));
                }
            }
            if (ceilings != null) {
                double cy = y(ceilings.get(i));
                s.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#212529\" stroke-dasharray=\"4 3\"/>\n",
                        x0 - 4, x0 + group * 0.7 + 4, cy, cy));
            }
        }
        return s.append("</svg>\n").toString();
    }
}

/** results.json: one object per measured run, with the raw counters' derived figures. */
final class Json {
    private Json() {
    }

    static String rows(List<Run> runs) {
        StringBuilder s = new StringBuilder("[\n");
        for (int i = 0; i < runs.size(); i++) {
            Run r = runs.get(i);
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("target", r.target);
            o.put("label", ThroughputReport.LABEL.getOrDefault(r.target, r.target));
            o.put("scenario", r.scenario());
            o.put("phase", r.phase);
            o.put("payload", r.payload);
            o.put("connections", r.connections);
            o.put("repetition", r.repetition);
            o.put("position_in_round", r.position);
            o.put("duration_s", round(r.durationS, 3));
            o.put("requests", r.requests);
            o.put("ok", r.ok());
            o.put("ko", r.ko());
            Map<String, Object> errors = new LinkedHashMap<>();
            errors.put("connect", r.errConnect);
            errors.put("read", r.errRead);
            errors.put("write", r.errWrite);
            errors.put("status", r.errStatus);
            errors.put("timeout", r.errTimeout);
            o.put("errors", errors);
            o.put("rps", round(r.rps(), 1));
            o.put("mean_ms", round(r.meanMs, 3));
            o.put("p50_ms", round(r.p50Ms, 3));
            o.put("p75_ms", round(r.p75Ms, 3));
            o.put("p90_ms", round(r.p90Ms, 3));
            o.put("p95_ms", round(r.p95Ms, 3));
            o.put("p99_ms", round(r.p99Ms, 3));
            o.put("max_ms", round(r.maxMs, 3));
            o.put("cpu_us_per_req", round(r.cpuUsPerReq(), 2));
            o.put("cpu_user_us_per_req", round(r.cpuUserUsPerReq(), 2));
            o.put("cpu_sys_us_per_req", round(r.cpuSysUsPerReq(), 2));
            o.put("cpu_jit_us_per_req", round(r.jitUsPerReq(), 2));
            o.put("cpu_gc_us_per_req", round(r.gcUsPerReq(), 2));
            o.put("upstream_cpu_us_per_req", round(r.upstreamCpuUsPerReq(), 2));
            o.put("wrk_cpu_us_per_req", round(r.wrkCpuUsPerReq(), 2));
            o.put("machine_busy_pct", round(r.machineBusyPct(), 1));
            o.put("other_cpu_pct", round(r.otherCpuPct(), 1));
            o.put("rss_mb", round(r.rssMb(), 1));
            o.put("open_files", r.fds);
            o.put("upstream_connects", r.upstreamConnects);
            o.put("machine_accepts", r.machineAccepts);
            o.put("client_reconnects_est", r.clientReconnects());
            o.put("response_bytes_per_req", round(r.responseBytes(), 1));
            if (r.phase.equals("scale")) {
                double ceiling = r.connections / ThroughputReport.SCALE_DELAY_S;
                o.put("ceiling_rps", ceiling);
                o.put("of_ceiling", round(r.rps() / ceiling, 4));
            }
            if (r.note != null && !r.note.isBlank()) {
                o.put("error", r.note);
            }
            s.append("  ").append(object(o)).append(i + 1 < runs.size() ? ",\n" : "\n");
        }
        return s.append("]\n").toString();
    }

    private static Double round(Double v, int digits) {
        if (v == null || v.isNaN() || v.isInfinite()) {
            return null;
        }
        double f = Math.pow(10, digits);
        return Math.round(v * f) / f;
    }

    @SuppressWarnings("unchecked")
    private static String value(Object v) {
        if (v == null) {
            return "null";
        }
        if (v instanceof Map<?, ?> m) {
            return object((Map<String, Object>) m);
        }
        if (v instanceof Double d) {
            return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString(d.longValue()) : d.toString();
        }
        if (v instanceof Number n) {
            return n.toString();
        }
        return string(v.toString());
    }

    private static String object(Map<String, Object> o) {
        return o.entrySet().stream().map(e -> string(e.getKey()) + ": " + value(e.getValue()))
                .collect(Collectors.joining(", ", "{", "}"));
    }

    static String string(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\t' -> b.append("\\t");
                case '\r' -> b.append("\\r");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
