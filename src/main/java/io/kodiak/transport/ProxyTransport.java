package io.kodiak.transport;

import io.kodiak.config.ProxyConfig;
import org.glassfish.grizzly.nio.RoundRobinConnectionDistributor;
import org.glassfish.grizzly.nio.transport.TCPNIOTransport;
import org.glassfish.grizzly.nio.transport.TCPNIOTransportBuilder;
import org.glassfish.grizzly.threadpool.ThreadPoolConfig;

import java.io.IOException;

/**
 * The one TCP transport both sides run on. Client and upstream connections share its I/O selector
 * threads (one per core by default, as nginx runs one worker per core), each side with its own
 * filter chain; a separate transport per side doubled the threads contending for the cores and
 * cost about a tenth more CPU per request at 640 connections.
 *
 * <p>One more selector thread does nothing but accept. Grizzly accepts one connection per
 * selector wake-up, so on a busy I/O thread a burst of new clients waited seconds in the listen
 * queue behind hundreds of ready connections (p99 over 1 s at 640 connections on this machine).
 */
public final class ProxyTransport {
    /**
     * Bytes queued for one connection before reads from its peer pause (back-pressure), in both
     * directions. Grizzly's default is 4x the socket send buffer, several MiB on loopback: too
     * much per connection for a proxy that holds thousands of them.
     */
    public static final int WRITE_QUEUE_LIMIT = 256 * 1024;
    private static final int ACCEPT_BACKLOG = 8192;

    private final TCPNIOTransport transport;

    public ProxyTransport(ProxyConfig.Listener settings) {
        TCPNIOTransportBuilder builder = TCPNIOTransportBuilder.newInstance()
                .setIOStrategy(IoStrategies.of(settings.ioStrategy()))
                .setSelectorRunnersCount(settings.selectorThreads() + 1)
                .setTcpNoDelay(true)
                // For upstream sockets: the kernel notices a peer gone while a pooled connection sits idle.
                .setKeepAlive(true)
                .setReuseAddress(true)
                .setServerConnectionBackLog(ACCEPT_BACKLOG);
        if (settings.ioStrategy().usesWorkerPool()) {
            builder.setWorkerThreadPoolConfig(ThreadPoolConfig.defaultConfig().copy()
                    .setPoolName("kodiak-worker")
                    .setCorePoolSize(settings.workerThreads())
                    .setMaxPoolSize(settings.workerThreads()));
        }
        transport = builder.build();
        transport.getAsyncQueueIO().getWriter().setMaxPendingBytesPerConnection(WRITE_QUEUE_LIMIT);
        transport.setName("kodiak");
        // Selector 0 serves the listening socket alone; accepted and upstream connections go
        // round-robin to the others.
        transport.setNIOChannelDistributor(new RoundRobinConnectionDistributor(transport, true, false));
    }

    public TCPNIOTransport grizzly() {
        return transport;
    }

    public void start() throws IOException {
        transport.start();
    }

    /** Closes every connection at once; the graceful path is the listener's. */
    public void stopNow() {
        try {
            transport.shutdownNow();
        } catch (IOException e) {
            // Closing sockets on the way out; nothing useful is left to do with the error.
        }
    }
}
