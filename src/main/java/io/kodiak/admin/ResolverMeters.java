package io.kodiak.admin;

import io.kodiak.discovery.WatchedName;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The meters of the names resolved while Kodiak runs: failed lookups, the addresses in use, and
 * when the name last resolved. A name a reload drops leaves the registry; one it adds joins it.
 */
final class ResolverMeters {
    private final MeterRegistry registry;
    /** Guarded by this: the series of each watched name, by identity. */
    private final Map<WatchedName, List<Meter>> byName = new IdentityHashMap<>();

    ResolverMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    synchronized void update(List<WatchedName> names) {
        Map<WatchedName, Boolean> watched = new IdentityHashMap<>();
        names.forEach(name -> watched.put(name, true));
        byName.entrySet().removeIf(entry -> {
            if (watched.containsKey(entry.getKey())) {
                return false;
            }
            entry.getValue().forEach(registry::remove);
            return true;
        });
        for (WatchedName name : names) {
            if (byName.containsKey(name)) {
                continue;
            }
            Tags tags = Tags.of("name", name.name().name(), "type", name.name().type());
            byName.put(name, List.of(
                    FunctionCounter.builder("kodiak.resolver.failures", name, WatchedName::failures)
                            .description("Lookups of the name that gave no usable answer (timeout, NXDOMAIN, SERVFAIL, no"
                                    + " records); the last good answer stays in use")
                            .tags(tags).register(registry),
                    Gauge.builder("kodiak.resolver.addresses", name,
                                    n -> n.known() == null ? 0 : n.known().endpoints().size())
                            .description("Addresses the name resolves to now (0: never resolved, its group has no server from it)")
                            .tags(tags).register(registry),
                    Gauge.builder("kodiak.resolver.last.resolved.seconds", name,
                                    n -> n.known() == null ? 0 : n.known().resolvedAt().toEpochMilli() / 1000.0)
                            .description("When the name last resolved, in seconds since the epoch (0: never)")
                            .tags(tags).register(registry)));
        }
    }
}
