package io.kodiak.admin;

import io.kodiak.Kodiak;
import io.kodiak.proxyprotocol.ProxyHeaderRefused;
import io.kodiak.transport.LoopMemoryManager;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.function.ToDoubleFunction;

/**
 * Meters read from the running proxy at scrape time: client connections, exchanges in flight,
 * drain state, write queues waiting for room, the configuration generation.
 */
final class ProxyGauges {
    private ProxyGauges() {
    }

    static void register(MeterRegistry registry, Kodiak kodiak) {
        proxy(registry, kodiak, "kodiak.inflight.exchanges", k -> k.drain().inFlight(),
                "Exchanges accepted and not yet finished");
        proxy(registry, kodiak, "kodiak.draining", k -> k.drain().isDraining() ? 1 : 0,
                "1 while the proxy is stopping: refusing new requests and finishing those in flight");
        proxy(registry, kodiak, "kodiak.client.connections", k -> k.listener().openConnections(),
                "Client connections open");
        proxy(registry, kodiak, "kodiak.client.connections.max", k -> k.listener().maxConnections(),
                "The client connection limit (proxy.listener.max-connections, resolved)");
        proxy(registry, kodiak, "kodiak.listener.accept.paused", k -> k.listener().acceptPaused() ? 1 : 0,
                "1 while the client connection limit holds new clients in the listen queue");
        FunctionCounter.builder("kodiak.listener.accept.pauses", kodiak, k -> k.listener().acceptPauses())
                .description("Times accepting paused because the client connection limit was reached")
                .register(registry);
        FunctionCounter.builder("kodiak.listener.accept.failures", kodiak, k -> k.listener().acceptFailures())
                .description("Accepts that failed (the open-file limit reached): each pauses accepting for 100 ms or more (the timer's next tick)")
                .register(registry);
        Gauge.builder("kodiak.write.queues", kodiak, k -> k.services().writeQueues().held())
                .description("Bytes written by exchanges and not yet taken by the kernel, all connections together")
                .baseUnit("bytes")
                .register(registry);
        proxy(registry, kodiak, "kodiak.write.queues.waiting.connections", k -> k.services().writeQueues().waiting(),
                "Connections whose write queue is full, the reads feeding it paused until it drains");
        Gauge.builder("kodiak.write.queues.budget", kodiak, k -> k.services().writeQueues().budget())
                .description("proxy.buffers.max-queued, resolved: past it a connection has room only while its queue is empty")
                .baseUnit("bytes")
                .register(registry);
        FunctionCounter.builder("kodiak.write.queues.waits", kodiak, k -> k.services().writeQueues().waits())
                .description("Times a connection's write queue filled and the reads feeding it paused")
                .register(registry);
        FunctionCounter.builder("kodiak.write.queues.waits.under.pressure", kodiak,
                        k -> k.services().writeQueues().waitsUnderPressure())
                .description("Of those, waits begun with proxy.buffers.max-queued spent (the connection held to one read)")
                .register(registry);
        FunctionCounter.builder("kodiak.proxy.protocol.accepted", kodiak, k -> k.listener().proxyProtocol().acceptedCount())
                .description("PROXY protocol headers read on the listeners that require one (proxy-protocol = true)")
                .register(registry);
        for (ProxyHeaderRefused.Reason reason : ProxyHeaderRefused.Reason.values()) {
            FunctionCounter.builder("kodiak.proxy.protocol.refused", kodiak, k -> k.listener().proxyProtocol().refusedCount(reason))
                    .description("Connections closed unanswered on a proxy-protocol listener: no header, a malformed or"
                            + " oversized one, one for another transport than TCP, or a peer outside proxy-protocol-trusted")
                    .tag("reason", reason.label)
                    .register(registry);
        }
        if (kodiak.memoryManager() instanceof LoopMemoryManager loops) {
            Gauge.builder("kodiak.buffers.in.use", loops, LoopMemoryManager::inUse)
                    .description("Pooled buffers handed out and not yet back, every event loop together (proxy.buffers.memory-manager = loop)")
                    .register(registry);
            Gauge.builder("kodiak.buffers.pooled", loops, LoopMemoryManager::pooledBytes)
                    .description("Direct memory the buffer pools hold, handed out or free (proxy.buffers.memory-manager = loop)")
                    .baseUnit("bytes")
                    .register(registry);
        }
        if (kodiak.tracing() != null) {
            // Only while tracing runs: off, there is nothing to count (and no series says 0 dropped).
            FunctionCounter.builder("kodiak.tracing.spans.dropped", kodiak.tracing(), io.kodiak.tracing.Tracing::droppedSpans)
                    .description("Ended spans dropped unexported: the export queue was full (proxy.tracing.max-queued-spans;"
                            + " the collector slow or down)")
                    .register(registry);
            FunctionCounter.builder("kodiak.tracing.spans.exported", kodiak.tracing(), io.kodiak.tracing.Tracing::exportedSpans)
                    .description("Spans the OTLP collector took")
                    .register(registry);
            FunctionCounter.builder("kodiak.tracing.spans.failed", kodiak.tracing(), io.kodiak.tracing.Tracing::failedSpans)
                    .description("Spans whose export failed: the collector down, refusing them, or slower than 10 s")
                    .register(registry);
        }
        Gauge.builder("kodiak.config.generation", kodiak, k -> k.generation().number())
                .description("The configuration in service: 1 as started, one more per applied reload")
                .register(registry);
        Gauge.builder("kodiak.config.loaded.timestamp", kodiak, k -> k.generation().loadedAt().toEpochMilli() / 1000.0)
                .description("When the configuration in service was loaded (Unix time)")
                .baseUnit("seconds")
                .register(registry);
    }

    private static void proxy(MeterRegistry registry, Kodiak kodiak, String name, ToDoubleFunction<Kodiak> value,
                              String description) {
        Gauge.builder(name, kodiak, value).description(description).register(registry);
    }
}
