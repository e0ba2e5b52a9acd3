package io.kodiak.listener;

import io.kodiak.config.ProxyConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.util.List;

/**
 * How many client connections the listener may hold: {@code proxy.listener.max-connections}, or,
 * when that is 0, what the process's open-file limit leaves once the upstream pools may be full.
 * Every client connection is a descriptor and so is every upstream connection; a proxy that runs
 * out fails the exchanges it already holds, so the limit is taken from the budget up front. A
 * client connection on a listener whose TLS engines hold descriptors of their own (Conscrypt's
 * pipe) counts as that many more.
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

    /** Descriptors one client connection may hold: its socket, and what the costliest listener's TLS engine keeps. */
    public static int filesPerClient(List<ProxyConfig.Endpoint> endpoints) {
        int engine = 0;
        for (ProxyConfig.Endpoint endpoint : endpoints) {
            if (endpoint.tls() != null) {
                engine = Math.max(engine, endpoint.tls().provider().descriptorsPerEngine());
            }
        }
        return 1 + engine;
    }

    /**
     * @param configured      the setting; 0 asks for the derived limit
     * @param openFileLimit   the process's limit on open descriptors, or a negative number where unknown
     * @param upstreamMax     how many upstream connections the pools may open in all
     * @param filesPerClient  descriptors one client connection holds ({@link #filesPerClient})
     */
    public static int clientLimit(int configured, long openFileLimit, long upstreamMax, int filesPerClient) {
        if (configured > 0) {
            if (openFileLimit > 0 && (long) configured * filesPerClient + upstreamMax + RESERVED_FILES > openFileLimit) {
                LOG.warn("proxy.listener.max-connections = {} ({} descriptors each) plus up to {} upstream connections"
                        + " (upstream.max-connections per upstream) exceed the open-file limit of {}:"
                        + " when all are open, new connections fail with \"Too many open files\"",
                        configured, filesPerClient, upstreamMax, openFileLimit);
            }
            return configured;
        }
        if (openFileLimit <= 0) {
            return Integer.MAX_VALUE;
        }
        long usable = openFileLimit - RESERVED_FILES;
        // Pools larger than the limit allows still leave clients their share of it: each exchange
        // in flight needs its client's descriptors and one upstream, so that share is what can be
        // proxied at once.
        long derived = Math.max((usable - upstreamMax) / filesPerClient, usable / (filesPerClient + 1));
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
