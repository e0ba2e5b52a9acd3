package io.kodiak.upstream;

import io.kodiak.config.UpstreamGroupConfig;
import io.kodiak.http.ResponseHead;
import io.kodiak.http.Violation;
import io.kodiak.transport.Deadline;
import io.kodiak.transport.Pieces;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.EmptyCompletionHandler;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.nio.transport.TCPNIOTransport;
import org.glassfish.grizzly.utils.DelayedExecutor;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Active health checks: every {@code interval}, an HTTP/1.1 GET of the group's check path on a
 * connection of its own (never a pooled one), answered within {@code timeout} with a 2xx or 3xx
 * status to pass. Each server's {@link Probe} lives in one delay queue of the transport's timer
 * for as long as the proxy runs, due either at its next check or at the end of the check in
 * progress, so checks cost no thread; responses are read by Kodiak's response codec like any
 * other, the probe being the listener bound to the connection.
 */
final class HealthChecks {
    private final TCPNIOTransport transport;
    private final DelayedExecutor.DelayQueue<Probe> queue;
    private volatile boolean stopped;
    /** Each watched server's probe, by identity: a reload's new server object gets a probe of its own. */
    private final Map<UpstreamServer, Probe> probes = java.util.Collections.synchronizedMap(new IdentityHashMap<>());

    HealthChecks(TCPNIOTransport transport, DelayedExecutor timers) {
        this.transport = transport;
        this.queue = timers.createDelayQueue(probe -> {
            probe.onDue();
            return false;
        }, Deadline.resolver(probe -> probe.due));
    }

    /** Starts checking {@code server}, the first check right away. */
    void watch(UpstreamServer server, UpstreamGroupConfig.HealthCheck check) {
        Probe probe = new Probe(server, check);
        probes.put(server, probe);
        queue.add(probe, 0, TimeUnit.MILLISECONDS);
    }

    /** Stops checking {@code server} (a reload replaced or removed it); a check in progress is dropped. */
    void unwatch(UpstreamServer server) {
        Probe probe = probes.remove(server);
        if (probe != null) {
            probe.retire();
        }
    }

    void stop() {
        stopped = true;
    }

    /** WAITING --due--> CHECKING --answer or timeout--> WAITING; either --unwatch--> RETIRED, for good. */
    private enum Step { WAITING, CHECKING, RETIRED }

    final class Probe {
        private final UpstreamServer server;
        private final UpstreamGroupConfig.HealthCheck check;
        private final InetSocketAddress address;
        private final byte[] request;
        /** The next check, or the end of the one in progress. */
        private final Deadline due = new Deadline();
        // Guarded by this.
        private Step step = Step.WAITING;
        private int generation;
        private Connection<?> connection;

        Probe(UpstreamServer server, UpstreamGroupConfig.HealthCheck check) {
            this.server = server;
            this.check = check;
            this.address = new InetSocketAddress(server.host(), server.port());
            this.request = ("GET " + check.path() + " HTTP/1.1\r\nHost: " + server.authority()
                    + "\r\nUser-Agent: kodiak-health-check\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        }

        /** On the timer thread: time for the next check, or the check in progress ran out of time. */
        void onDue() {
            int current;
            boolean timedOut;
            synchronized (this) {
                if (stopped || step == Step.RETIRED) {
                    due.close();
                    return;
                }
                timedOut = step == Step.CHECKING;
                if (!timedOut) {
                    step = Step.CHECKING;
                    ++generation;
                    due.set(System.currentTimeMillis() + check.timeout().toMillis());
                }
                current = generation;
            }
            if (timedOut) {
                finish(current, false, "no answer within " + check.timeout().toMillis() + " ms");
            } else {
                start(current);
            }
        }

        private void start(int generation) {
            server.pool().connect(new EmptyCompletionHandler<Connection>() {
                @Override
                public void completed(Connection opened) {
                    synchronized (Probe.this) {
                        if (step != Step.CHECKING || Probe.this.generation != generation) {
                            opened.closeSilently();
                            return;
                        }
                        connection = opened;
                    }
                    UpstreamConnection.of(opened).bind(new Listener(generation));
                    opened.write(Buffers.wrap(transport.getMemoryManager(), request));
                }

                @Override
                public void failed(Throwable error) {
                    finish(generation, false, "connect failed (" + error.getClass().getSimpleName() + ")");
                }

                @Override
                public void cancelled() {
                    finish(generation, false, "connect cancelled");
                }
            });
        }

        private void finish(int generation, boolean passed, String detail) {
            Connection<?> done;
            synchronized (this) {
                if (step != Step.CHECKING || this.generation != generation) {
                    return;
                }
                step = Step.WAITING;
                done = connection;
                connection = null;
                // The queue keeps the probe; a new due time makes it fire again then.
                due.set(System.currentTimeMillis() + check.interval().toMillis());
            }
            if (done != null) {
                done.closeSilently();
            }
            if (!stopped) {
                server.checked(passed, detail);
            }
        }

        /** No further checks: the timer drops the probe, and a check in progress ends unrecorded. */
        void retire() {
            Connection<?> open;
            synchronized (this) {
                step = Step.RETIRED;
                open = connection;
                connection = null;
                ++generation;
                due.close();
            }
            if (open != null) {
                open.closeSilently();
            }
        }

        /** What the probe's connection reports: the status decides, the rest is ignored. */
        private final class Listener implements ResponseListener {
            private final int generation;

            Listener(int generation) {
                this.generation = generation;
            }

            private void status(int status) {
                finish(generation, status >= 200 && status < 400, "status " + status);
            }

            @Override
            public boolean requestWasHead() {
                return false;
            }

            @Override
            public boolean upgradeRequested() {
                return false;
            }

            @Override
            public boolean onInterimResponse(UpstreamConnection from, ResponseHead head) {
                return true;
            }

            @Override
            public boolean onResponseHead(UpstreamConnection from, ResponseHead head, Buffer firstPiece) {
                Pieces.drop(firstPiece);
                status(head.status());
                return true;
            }

            @Override
            public boolean onResponseBody(UpstreamConnection from, Buffer piece) {
                Pieces.drop(piece);
                return true;
            }

            @Override
            public void onResponseEnd(UpstreamConnection from, ResponseHead head, Buffer lastPiece, boolean reusable) {
                Pieces.drop(lastPiece);
                if (head != null) {
                    status(head.status());
                }
            }

            @Override
            public boolean onTunnelBytes(UpstreamConnection from, Buffer bytes) {
                Pieces.drop(bytes);
                return true;
            }

            @Override
            public void onInvalidResponse(UpstreamConnection from, Violation violation) {
                finish(generation, false, "invalid response (" + violation.text() + ")");
            }

            @Override
            public void onUpstreamClosed(UpstreamConnection from) {
                finish(generation, false, "closed before a response");
            }

            @Override
            public void onDeadline(UpstreamConnection from) {
            }
        }
    }
}
