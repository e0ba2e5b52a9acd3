package io.kodiak.listener;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;

/**
 * How many client connections the listener may hold: {@code proxy.listener.max-connections}, or,
 * when that is 0, what the process's open-file limit leaves once the upstream pools may be full.
 * Every client connection is a descriptor and so is every upstream connection; a proxy that runs
 * out fails the exchanges it already holds, so the limit is taken from the budget up front.
 */
public final class ConnectionBudget {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionBudget.class);
    /**
     * Descriptors kept for everything but proxied connections: the jars on the class path, log
     * files, selectors, the admin listener and its clients. An idle daemon holds 46 (ls /proc/<pid>/fd
     * after bin/proxy.sh start).
     */
    static final int RESERVED_FILES = 256;

    private ConnectionBudget() {
    }

    /**
     * @param configured      the setting; 0 asks for the derived limit
     * @param openFileLimit   the process's limit on open descriptors, or a negative number where unknown
     * @param upstreamMax     how many upstream connections the pools may open in all
     */
    public static int clientLimit(int configured, long openFileLimit, long upstreamMax) {
        if (configured > 0) {
            if (openFileLimit > 0 && configured + upstreamMax + RESERVED_FILES > openFileLimit) {
                LOG.warn("proxy.listener.max-connections = {} plus up to {} upstream connections"
                        + " (upstream.max-connections per upstream) exceed the open-file limit of {}:"
                        + " when all are open, new connections fail with \"Too many open files\"",
                        configured, upstreamMax, openFileLimit);
            }
            return configured;
        }
        if (openFileLimit <= 0) {
            return Integer.MAX_VALUE;
        }
        long usable = openFileLimit - RESERVED_FILES;
        // Pools larger than the limit allows still leave clients half of it: each exchange in
        // flight needs one descriptor on each side, so that half is what can be proxied at once.
        long derived = Math.max(usable - upstreamMax, usable / 2);
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, derived));
    }

    /** The process's limit on open descriptors (after the JVM raised it to the hard limit), or -1. */
    public static long openFileLimit() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
            return unix.getMaxFileDescriptorCount();
        }
        return -1;
    }
}
