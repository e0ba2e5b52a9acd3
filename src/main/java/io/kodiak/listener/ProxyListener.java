package io.kodiak.listener;

import io.kodiak.proxyprotocol.ProxyProtocolCounts;
import io.kodiak.client.IdleClock;
import io.kodiak.config.ProxyConfig;
import io.kodiak.exchange.Admission;
import io.kodiak.exchange.Drain;
import io.kodiak.loop.EventLoops;
import io.kodiak.tls.PemMaterial;
import io.kodiak.h2.Http2Observer;
import io.kodiak.tls.TlsObserver;
import org.glassfish.grizzly.GracefulShutdownListener;
import org.glassfish.grizzly.ShutdownContext;
import org.glassfish.grizzly.nio.transport.TCPNIOTransport;
import org.glassfish.grizzly.utils.DelayedExecutor;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The client-facing listener: the proxy's transport ({@link EventLoops}: its selector threads,
 * worker pool and write queues) serving every configured address. Each address has its own filter chain, Grizzly's
 * TransportFilter, TLS where configured, and Kodiak's own HTTP/1.1 server side
 * ({@link ClientFilter}), so request and response bytes pass between the two sides as the transport
 * read them. The connection limit counts the connections of all addresses together.
 */
public final class ProxyListener {
    /** The listen queue of every address (the transport's; see {@link EventLoops}). */
    public static final int BACKLOG = 8192;
    private final TCPNIOTransport transport;
    /** The transport's selector threads, set by start(): their end releases the listening sockets. */
    private ExecutorService selectorThreads;
    private final Drain drain;
    private final ConnectionLimit connections;
    /** One per address, in ProxyConfig#endpoints() order; replaced whole by a reload. */
    private volatile List<Binding> bindings;
    /** What every address's chain is built with, at start and by each reload. */
    private final Binding.Wiring wiring;

    /** {@code maxConnections}: the resolved client connection limit (see {@link ConnectionBudget}). */
    public ProxyListener(ProxyConfig.Listener settings, List<ProxyConfig.Endpoint> endpoints, int maxConnections,
                         Admission admission, Drain drain, DelayedExecutor timers, EventLoops loops,
                         TlsObserver tlsObserver, Http2Observer http2Observer) {
        this.drain = drain;
        this.connections = new ConnectionLimit(maxConnections, timers);
        loops.onAcceptFailure(connections::acceptFailed);
        this.wiring = new Binding.Wiring(admission, new IdleClock(timers), timers, tlsObserver, http2Observer,
                new ProxyProtocolCounts());
        List<Binding> all = new ArrayList<>();
        for (ProxyConfig.Endpoint endpoint : endpoints) {
            try {
                all.add(Binding.create(endpoint, settings, wiring));
            } catch (PemMaterial.Unusable e) {
                // Checked by the configuration loader moments ago: a file changed since.
                throw new IllegalStateException(e.getMessage(), e);
            }
        }
        this.bindings = List.copyOf(all);

        transport = loops.transport();
        // Each listening socket hands its connections its own chain (bind, below); the transport's
        // default is the first address's, and serves nothing else.
        transport.setProcessor(bindings.get(0).chain());
        transport.addShutdownListener(new DrainOnShutdown());
    }

    /**
     * Binds every address. One that cannot be bound stops the start, naming its key, and releases
     * the addresses already bound. proxy.listener's is bound last: once it accepts (what
     * bin/proxy.sh waits for), every address does.
     */
    public void start() throws IOException {
        // Kept: a graceful shutdown drops the transport's reference before stop() could wait on it.
        selectorThreads = transport.getKernelThreadPool();
        try {
            bindAll(bindings);
        } catch (IOException e) {
            try {
                shutdownAndReleaseAddresses();
            } catch (IOException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
        for (Binding binding : bindings) {
            binding.startWatch();
        }
    }

    /** Client connections open now, on every address. */
    public int openConnections() {
        return connections.open();
    }

    /** The most client connections held at once; beyond it, accepting pauses. */
    public int maxConnections() {
        return connections.max();
    }

    /** True while the connection limit holds new clients in the listen queue. */
    public boolean acceptPaused() {
        return connections.paused();
    }

    /** Times accepting paused at the connection limit since the start. */
    public long acceptPauses() {
        return connections.pauses();
    }

    /** PROXY protocol headers read and connections refused, on the listeners that require one. */
    public ProxyProtocolCounts proxyProtocol() {
        return wiring.proxyProtocol();
    }

    /** Accepts that failed since the start (the open-file limit reached, EMFILE); each paused accepting for a moment. */
    public long acceptFailures() {
        return connections.acceptFailures();
    }

    /** proxy.listener's bound port (differs from the configured one when that is 0, as in tests). */
    public int port() {
        return port(0);
    }

    /** The bound port of address {@code index} of {@link ProxyConfig#endpoints()}. */
    public int port(int index) {
        return bindings.get(index).port();
    }

    /**
     * What a reload changes on the listening side, prepared before anything is applied: the
     * bindings of the next configuration ({@code next}, in endpoint order), those among them that
     * are new addresses ({@code added}), and the current ones no address of the next
     * configuration keeps ({@code removed}).
     */
    public static final class Plan {
        private final List<Binding> next;
        private final List<Binding> added;
        private final List<Binding> removed;

        private Plan(List<Binding> next, List<Binding> added, List<Binding> removed) {
            this.next = next;
            this.added = added;
            this.removed = removed;
        }

        /** Addresses the reload starts listening on, as host:port. */
        public List<String> addedAddresses() {
            return added.stream().map(Binding::address).toList();
        }

        /** Addresses the reload stops listening on; their open connections finish. */
        public List<String> removedAddresses() {
            return removed.stream().map(Binding::address).toList();
        }
    }

    /**
     * Prepares {@code endpoints} under {@code settings} beside the current addresses, reading
     * certificates where the TLS settings changed; nothing is bound or changed yet. Selector and
     * worker threads, the I/O strategy and the connection limit are the transport's and stay as
     * they started.
     */
    public synchronized Plan prepare(ProxyConfig.Listener settings, List<ProxyConfig.Endpoint> endpoints)
            throws PemMaterial.Unusable {
        List<Binding> current = bindings;
        List<Binding> next = new ArrayList<>();
        List<Binding> added = new ArrayList<>();
        List<Binding> matched = new ArrayList<>();
        for (ProxyConfig.Endpoint endpoint : endpoints) {
            Binding old = current.stream().filter(b -> b.sameAddress(endpoint)).findFirst().orElse(null);
            if (old == null) {
                Binding fresh = Binding.create(endpoint, settings, wiring);
                added.add(fresh);
                next.add(fresh);
            } else {
                matched.add(old);
                next.add(old.reconfigured(endpoint, settings, wiring));
            }
        }
        List<Binding> removed = current.stream().filter(b -> !matched.contains(b)).toList();
        return new Plan(next, added, removed);
    }

    /**
     * Binds the plan's new addresses (last to first, as at start). One that cannot be bound
     * releases those bound before it and fails naming its key: the reload is refused and the
     * current addresses serve on untouched.
     */
    public synchronized void bind(Plan plan) throws IOException {
        bindAll(plan.added);
    }

    /**
     * Binds {@code all} from the last to the first, each counted by the connection limit from its
     * first accept; one that cannot be bound releases those bound before it and fails naming its key.
     */
    private void bindAll(List<Binding> all) throws IOException {
        List<Binding> bound = new ArrayList<>();
        try {
            for (int i = all.size() - 1; i >= 0; i--) {
                Binding binding = all.get(i);
                binding.bind(transport, BACKLOG);
                connections.attach(binding.server());
                bound.add(binding);
            }
        } catch (IOException e) {
            bound.forEach(this::release);
            throw e;
        }
    }

    /** The listening socket closes; the connections it accepted are the transport's and finish. */
    private void release(Binding binding) {
        connections.detach(binding.server());
        transport.unbind(binding.server());
    }

    /** Puts the plan in service: new addresses accept, changed ones hand new connections their new chain, removed ones stop accepting. */
    public synchronized void commit(Plan plan) {
        List<Binding> current = bindings;
        for (Binding binding : plan.next) {
            if (plan.added.contains(binding)) {
                binding.startWatch();
            } else if (!current.contains(binding)) {
                current.stream().filter(b -> b.sameAddress(binding.endpoint())).findFirst().ifPresent(binding::takeOver);
            }
        }
        bindings = List.copyOf(plan.next);
        for (Binding binding : plan.removed) {
            binding.stopWatch();
            release(binding);
        }
    }

    /** Drops a plan that will not be committed (a later step of the reload failed). */
    public synchronized void abandon(Plan plan) {
        // Those bound: bind released its own partial work already, and releasing twice does nothing.
        plan.added.stream().filter(Binding::bound).forEach(this::release);
    }

    /**
     * Stops accepting, lets in-flight exchanges finish for at most {@code graceMillis}, then closes
     * every remaining connection.
     */
    public void stop(long graceMillis) {
        for (Binding binding : bindings) {
            binding.stopWatch();
        }
        connections.close();
        // Before the unbind: Grizzly calls the shutdown listener on its own thread after unbinding,
        // and a response finishing in between must already say Connection: close.
        drain.begin();
        try {
            transport.shutdown(graceMillis, TimeUnit.MILLISECONDS).get(graceMillis + 5_000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // Grace expired or shutdown failed: fall through to the hard stop.
        }
        // Whatever Grizzly's shutdown reported, nothing in flight from here on ends by its client's doing.
        drain.expire();
        try {
            shutdownAndReleaseAddresses();
        } catch (IOException e) {
            // Closing sockets on the way out; nothing useful is left to do with the error.
        }
    }

    /**
     * Stops the transport and returns once its addresses can be bound again. A listening channel
     * closed while registered with a selector keeps its socket until that selector deregisters
     * it, on its own thread, after Grizzly's close future has already completed; the selector
     * threads close their selectors (releasing every socket) on their way out, so waiting for the
     * kernel pool to end is waiting for the addresses (a retry or a restart on the same port
     * would otherwise fail on "Address already in use").
     */
    private void shutdownAndReleaseAddresses() throws IOException {
        transport.shutdownNow();
        if (selectorThreads != null) {
            try {
                selectorThreads.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private final class DrainOnShutdown implements GracefulShutdownListener {
        @Override
        public void shutdownRequested(ShutdownContext context) {
            drain.start(context::ready);
        }

        @Override
        public void shutdownForced() {
            // The grace period is over: what is still in flight is cut by the proxy, not its client.
            drain.expire();
        }
    }
}
