package io.kodiak.daemon;

import io.kodiak.config.ProxyConfig;
import io.kodiak.config.UpstreamGroupConfig;
import io.kodiak.routing.Route;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a reload changes, for the log and the reload command: routes added, removed and changed
 * (by prefix), servers added to and removed from groups, and every other key whose value changed.
 */
record ConfigChanges(List<String> routesAdded, List<String> routesRemoved, List<String> routesChanged,
                     List<String> serversAdded, List<String> serversRemoved, List<String> keysChanged) {

    static ConfigChanges between(ProxyConfig before, ProxyConfig after) {
        Map<String, Route> was = byPrefix(before.routes());
        Map<String, Route> now = byPrefix(after.routes());
        List<String> added = new ArrayList<>();
        List<String> removed = new ArrayList<>();
        List<String> changed = new ArrayList<>();
        now.forEach((prefix, route) -> {
            Route old = was.get(prefix);
            if (old == null) {
                added.add(describe(route));
            } else if (!old.equals(route)) {
                changed.add(describe(route));
            }
        });
        was.forEach((prefix, route) -> {
            if (!now.containsKey(prefix)) {
                removed.add(describe(route));
            }
        });
        Set<String> serversBefore = servers(before);
        Set<String> serversAfter = servers(after);
        List<String> serversAdded = serversAfter.stream().filter(s -> !serversBefore.contains(s)).toList();
        List<String> serversRemoved = serversBefore.stream().filter(s -> !serversAfter.contains(s)).toList();
        // Routes are listed above, one by one; every other key by name.
        Set<String> keys = new TreeSet<>(before.settings().keySet());
        keys.addAll(after.settings().keySet());
        List<String> keysChanged = keys.stream()
                .filter(key -> !key.equals("proxy.routes"))
                .filter(key -> !Objects.equals(before.settings().get(key), after.settings().get(key)))
                .toList();
        return new ConfigChanges(added, removed, changed, serversAdded, serversRemoved, keysChanged);
    }

    /**
     * The keys {@code after} changes that a reload does not apply: the transports' threads, I/O
     * strategy and connection limit, the memory manager and write-queue bounds, whether the admin listener (with the
     * metrics it reads) exists at all, the resolver's settings (proxy.resolver) and proxy.tracing (the SDK, its
     * sampler, queue and exporter are built once). Their running values stay until a restart.
     */
    static List<String> restartOnly(ProxyConfig before, ProxyConfig after) {
        ProxyConfig.Listener was = before.listener();
        ProxyConfig.Listener now = after.listener();
        List<String> keys = new ArrayList<>();
        if (was.selectorThreads() != now.selectorThreads()) {
            keys.add("proxy.listener.selector-threads");
        }
        if (was.workerThreads() != now.workerThreads()) {
            keys.add("proxy.listener.worker-threads");
        }
        if (was.ioStrategy() != now.ioStrategy()) {
            keys.add("proxy.listener.io-strategy");
        }
        if (was.maxConnections() != now.maxConnections()) {
            keys.add("proxy.listener.max-connections");
        }
        if (before.buffers().memoryManager() != after.buffers().memoryManager()) {
            keys.add("proxy.buffers.memory-manager");
        }
        if (before.buffers().maxQueuedPerConnection() != after.buffers().maxQueuedPerConnection()) {
            keys.add("proxy.buffers.max-queued-per-connection");
        }
        if (before.buffers().maxQueued() != after.buffers().maxQueued()) {
            keys.add("proxy.buffers.max-queued");
        }
        if (before.admin().enabled() != after.admin().enabled()) {
            keys.add("proxy.admin.enabled");
        }
        // The resolver's threads and sockets are made once; the names to look up follow a reload.
        if (!before.resolver().servers().equals(after.resolver().servers())) {
            keys.add("proxy.resolver.servers");
        }
        if (!before.resolver().valid().equals(after.resolver().valid())) {
            keys.add("proxy.resolver.valid");
        }
        if (!before.resolver().timeout().equals(after.resolver().timeout())) {
            keys.add("proxy.resolver.timeout");
        }
        // The tracing SDK, its sampler, queue and exporter are built once, at start.
        if (before.tracing().enabled() != after.tracing().enabled()) {
            keys.add("proxy.tracing.enabled");
        }
        if (before.tracing().sampler() != after.tracing().sampler()) {
            keys.add("proxy.tracing.sampler");
        }
        if (!before.tracing().serviceName().equals(after.tracing().serviceName())) {
            keys.add("proxy.tracing.service-name");
        }
        if (before.tracing().maxQueuedSpans() != after.tracing().maxQueuedSpans()) {
            keys.add("proxy.tracing.max-queued-spans");
        }
        if (!before.tracing().endpoint().equals(after.tracing().endpoint())) {
            keys.add("proxy.tracing.otlp.endpoint");
        }
        return keys;
    }

    /** One line per change, as logged and printed by bin/proxy.sh reload. */
    List<String> lines() {
        List<String> lines = new ArrayList<>();
        routesAdded.forEach(r -> lines.add("route added: " + r));
        routesRemoved.forEach(r -> lines.add("route removed: " + r));
        routesChanged.forEach(r -> lines.add("route changed: " + r));
        serversAdded.forEach(s -> lines.add("server added: " + s));
        serversRemoved.forEach(s -> lines.add("server removed (draining): " + s));
        keysChanged.forEach(k -> lines.add("key changed: " + k));
        return lines;
    }

    private static Map<String, Route> byPrefix(List<Route> routes) {
        Map<String, Route> map = new LinkedHashMap<>();
        routes.forEach(route -> map.put(route.name(), route));
        return map;
    }

    private static String describe(Route route) {
        return route.name() + " -> " + route.upstreamUrl();
    }

    /** "group host:port" for every server of every group (implicit groups are named by their host:port). */
    private static Set<String> servers(ProxyConfig config) {
        Set<String> servers = new LinkedHashSet<>();
        for (UpstreamGroupConfig group : config.groups()) {
            for (UpstreamGroupConfig.Server server : group.servers()) {
                servers.add(group.implicit() ? server.authority() : group.name() + " " + server.authority());
            }
        }
        return servers;
    }
}
