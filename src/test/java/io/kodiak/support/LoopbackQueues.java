package io.kodiak.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The kernel's own account of a loopback TCP connection (Linux's /proc/net/tcp and tcp6, Java's sockets being
 * IPv6 ones with mapped IPv4 addresses as often as not): how many bytes the writer
 * has sent that are not yet acknowledged, and how many the reader has received but not yet read. Both at
 * zero means the reading process has read everything written so far, which is how a test upstream knows
 * the proxy took one part of an answer before it sends the next (Kodiak's upstream reads report to no
 * probe, so {@link ProxyReads} cannot see them).
 */
public final class LoopbackQueues {
    private static final Path TCP = Path.of("/proc/net/tcp");
    private static final Path TCP6 = Path.of("/proc/net/tcp6");
    private static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(30);

    private LoopbackQueues() {
    }

    /** Whether the kernel shows its queues here (Linux). */
    public static boolean available() {
        return Files.isReadable(TCP);
    }

    /**
     * Waits until the process at {@code readerPort} has read every byte the socket at {@code writerPort}
     * wrote to it (or the reader's socket is gone: a proxy that closed reads no more).
     */
    public static void awaitTaken(int writerPort, int readerPort) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + DEADLINE_NANOS;
        while (true) {
            long[] reader = null;
            long[] writer = null;
            for (String line : lines()) {
                long[] entry = parse(line);
                if (entry == null) {
                    continue;
                }
                if (entry[0] == readerPort && entry[1] == writerPort) {
                    reader = entry;
                } else if (entry[0] == writerPort && entry[1] == readerPort) {
                    writer = entry;
                }
            }
            if (writer == null) {
                throw new AssertionError("no socket at port " + writerPort + " connected to " + readerPort
                        + " in " + TCP + " or " + TCP6);
            }
            if (reader == null || reader[3] == 0 && writer[2] == 0) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("port " + readerPort + " never read what port " + writerPort + " sent: "
                        + reader[3] + " bytes unread, " + writer[2] + " unacknowledged");
            }
            Thread.sleep(2);
        }
    }

    private static List<String> lines() throws IOException {
        List<String> lines = new java.util.ArrayList<>(Files.readAllLines(TCP));
        if (Files.isReadable(TCP6)) {
            lines.addAll(Files.readAllLines(TCP6));
        }
        return lines;
    }

    /** local port, remote port, tx_queue, rx_queue; null for the header. */
    private static long[] parse(String line) {
        String[] f = line.trim().split("\\s+");
        if (f.length < 5 || !f[0].endsWith(":") || f[0].equals("sl")) {
            return null;
        }
        String[] queues = f[4].split(":");
        return new long[] {port(f[1]), port(f[2]), Long.parseLong(queues[0], 16), Long.parseLong(queues[1], 16)};
    }

    private static long port(String address) {
        return Long.parseLong(address.substring(address.indexOf(':') + 1), 16);
    }
}
