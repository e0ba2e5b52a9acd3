// Where a JVM spent its CPU and allocations during a recorded bench phase, from a JFR recording, as text:
//
//   java bench/throughput/JfrSummary.java RECORDING.jfr [TOP]
//
// run.sh --jfr records Kodiak with JFR's "profile" settings while the measured runs go on and writes this
// summary next to the report. Execution samples give the hottest methods (self: the sampled top frame;
// total: anywhere on the stack), allocation samples the code and classes that allocate most, and the GC
// events how much pausing that allocation cost.

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

public class JfrSummary {
    public static void main(String[] args) throws IOException {
        if (args.length < 1) {
            System.err.println("usage: java JfrSummary.java RECORDING.jfr [TOP]");
            System.exit(2);
        }
        int top = args.length > 1 ? Integer.parseInt(args[1]) : 30;
        Map<String, Long> self = new HashMap<>();
        Map<String, Long> total = new HashMap<>();
        Map<String, Long> threads = new HashMap<>();
        Map<String, Long> allocSite = new HashMap<>();
        Map<String, Long> allocClass = new HashMap<>();
        long samples = 0;
        long nativeSamples = 0;
        Map<String, Long> nativeTop = new HashMap<>();
        long allocBytes = 0;
        long gcCount = 0;
        Duration gcPauses = Duration.ZERO;
        Duration longestPause = Duration.ZERO;
        for (RecordedEvent e : RecordingFile.readAllEvents(Path.of(args[0]))) {
            switch (e.getEventType().getName()) {
                case "jdk.ExecutionSample" -> {
                    RecordedStackTrace st = e.getStackTrace();
                    if (st == null || st.getFrames().isEmpty()) {
                        continue;
                    }
                    samples++;
                    List<RecordedFrame> frames = st.getFrames();
                    self.merge(name(frames.get(0)), 1L, Long::sum);
                    Set<String> seen = new HashSet<>();
                    for (RecordedFrame f : frames) {
                        // A recursive method counts once per sample.
                        if (seen.add(name(f))) {
                            total.merge(name(f), 1L, Long::sum);
                        }
                    }
                    RecordedThread t = e.getThread("sampledThread");
                    threads.merge(t == null ? "?" : threadGroup(t.getJavaName()), 1L, Long::sum);
                }
                case "jdk.NativeMethodSample" -> {
                    nativeSamples++;
                    RecordedStackTrace st = e.getStackTrace();
                    if (st != null && !st.getFrames().isEmpty()) {
                        nativeTop.merge(name(st.getFrames().get(0)), 1L, Long::sum);
                    }
                }
                case "jdk.ObjectAllocationSample" -> {
                    long weight = e.getLong("weight");
                    allocBytes += weight;
                    allocClass.merge(e.getClass("objectClass").getName(), weight, Long::sum);
                    RecordedStackTrace st = e.getStackTrace();
                    if (st != null && !st.getFrames().isEmpty()) {
                        allocSite.merge(firstOwnFrame(st.getFrames()), weight, Long::sum);
                    }
                }
                case "jdk.GarbageCollection" -> {
                    gcCount++;
                    Duration pauses = e.getDuration("sumOfPauses");
                    gcPauses = gcPauses.plus(pauses);
                    if (e.getDuration("longestPause").compareTo(longestPause) > 0) {
                        longestPause = e.getDuration("longestPause");
                    }
                }
                default -> {
                }
            }
        }
        StringBuilder s = new StringBuilder();
        s.append("JFR summary of ").append(args[0]).append('\n');
        s.append(String.format(Locale.ROOT, "%,d samples of threads running Java code and %,d of threads in native"
                + " methods (system calls, waiting in select); the two use different clocks, so compare within each%n",
                samples, nativeSamples));
        s.append(String.format(Locale.ROOT, "%,d execution samples; %,d garbage collections, %.0f ms paused in all, longest %.1f ms;"
                + " about %,.0f MB allocated (sampled estimate)%n%n", samples, gcCount, gcPauses.toNanos() / 1e6,
                longestPause.toNanos() / 1e6, allocBytes / 1048576.0));
        table(s, "CPU samples by thread", threads, samples, top);
        table(s, "hottest methods, self (the sampled frame itself)", self, samples, top);
        table(s, "hottest methods, total (anywhere on the stack)", total, samples, top);
        table(s, "native methods sampled (where threads sat in native code)", nativeTop, nativeSamples, 10);
        table(s, "allocation by class (bytes, sampled)", allocClass, allocBytes, top);
        table(s, "allocation by site (first frame outside java.*, jdk.*, sun.*)", allocSite, allocBytes, top);
        System.out.print(s);
    }

    private static String name(RecordedFrame f) {
        RecordedMethod m = f.getMethod();
        if (m == null) {
            return "?";
        }
        String type = m.getType() == null ? "?" : m.getType().getName();
        return type + "." + m.getName();
    }

    /** Allocation inside the JDK is charged to the application code that asked for it. */
    private static String firstOwnFrame(List<RecordedFrame> frames) {
        for (RecordedFrame f : frames) {
            String n = name(f);
            if (!(n.startsWith("java.") || n.startsWith("jdk.") || n.startsWith("sun."))) {
                return n + ":" + f.getLineNumber();
            }
        }
        return name(frames.get(0));
    }

    /** Numbered thread names (pool-3-thread-17) grouped, so a pool shows as one line. */
    private static String threadGroup(String name) {
        return name == null ? "?" : name.replaceAll("\\d+", "N");
    }

    private static void table(StringBuilder s, String title, Map<String, Long> counts, long all, int top) {
        s.append(title).append('\n');
        Map<String, Long> sorted = new LinkedHashMap<>();
        counts.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(top)
                .forEach(e -> sorted.put(e.getKey(), e.getValue()));
        sorted.forEach((k, v) -> s.append(String.format(Locale.ROOT, "  %5.1f %%  %s%n", all > 0 ? 100.0 * v / all : 0, k)));
        s.append('\n');
    }
}
