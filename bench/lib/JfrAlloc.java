// Bytes a JVM allocated over a recording made with bench/lib/alloc.jfc, summed over its threads:
//
//   java bench/lib/JfrAlloc.java RECORDING.jfr      prints "BYTES THREADS"
//
// The recording holds each thread's allocation counter (jdk.ThreadAllocationStatistics) when it started and
// when it stopped. A thread's share is its last counter minus its first; a thread that started during the
// window has only the last, all of it allocated in the window; a thread that ended during it has only the
// first and is lost (a bench's serving threads live as long as the process). JFR's own threads and the
// Attach Listener, which serves jcmd's JFR.start and JFR.stop, are left out: they are the measurement's.

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

public class JfrAlloc {
    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: java JfrAlloc.java RECORDING.jfr");
            System.exit(2);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(Path.of(args[0])).stream()
                .filter(e -> e.getEventType().getName().equals("jdk.ThreadAllocationStatistics")).toList();
        if (events.isEmpty()) {
            System.err.println(args[0] + ": no jdk.ThreadAllocationStatistics events");
            System.exit(1);
        }
        Instant first = events.stream().map(RecordedEvent::getStartTime).min(Instant::compareTo).orElseThrow();
        Instant last = events.stream().map(RecordedEvent::getStartTime).max(Instant::compareTo).orElseThrow();
        Instant middle = first.plus(java.time.Duration.between(first, last).dividedBy(2));
        if (first.equals(last)) {
            System.err.println(args[0] + ": the counters were read once, not at the window's start and end");
            System.exit(1);
        }
        Map<Long, Long> atStart = new HashMap<>();
        Map<Long, Long> atEnd = new HashMap<>();
        for (RecordedEvent e : events) {
            RecordedThread t = e.getThread("thread");
            if (t == null || measurementThread(t.getJavaName())) {
                continue;
            }
            // The counters are read in two bursts, at the recording's start and at its stop.
            Map<Long, Long> side = e.getStartTime().isAfter(middle) ? atEnd : atStart;
            side.merge(t.getJavaThreadId(), e.getLong("allocated"), Math::max);
        }
        long bytes = 0;
        for (Map.Entry<Long, Long> end : atEnd.entrySet()) {
            bytes += Math.max(0, end.getValue() - atStart.getOrDefault(end.getKey(), 0L));
        }
        System.out.println(bytes + " " + atEnd.size());
    }

    private static boolean measurementThread(String name) {
        return name == null || name.startsWith("JFR ") || name.equals("Attach Listener");
    }
}
