package io.kodiak.upstream;

import io.kodiak.routing.Route;
import io.kodiak.tls.UpstreamTls;
import io.kodiak.tls.UpstreamTlsSettings;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The upstream groups of one configuration generation, by name: what that generation's routes
 * resolve to. Immutable; a reload builds the next one ({@link UpstreamClient#prepare}), reusing
 * the groups and pools that did not change.
 */
public final class UpstreamGroups {
    private final Map<String, UpstreamGroup> byName;
    /** The TLS context of each distinct upstream TLS setting these groups' https:// servers use. */
    private final Map<UpstreamTlsSettings, UpstreamTls> tlsContexts;

    UpstreamGroups(Map<String, UpstreamGroup> byName, Map<UpstreamTlsSettings, UpstreamTls> tlsContexts) {
        this.byName = new LinkedHashMap<>(byName);
        this.tlsContexts = Map.copyOf(tlsContexts);
    }

    static final UpstreamGroups NONE = new UpstreamGroups(Map.of(), Map.of());

    Map<UpstreamTlsSettings, UpstreamTls> tlsContexts() {
        return tlsContexts;
    }

    public UpstreamGroup groupFor(Route route) {
        return byName.get(route.group());
    }

    UpstreamGroup named(String name) {
        return byName.get(name);
    }

    public Collection<UpstreamGroup> groups() {
        return List.copyOf(byName.values());
    }

    /** Every server of every group, in order. */
    public List<UpstreamServer> servers() {
        List<UpstreamServer> servers = new ArrayList<>();
        byName.values().forEach(g -> servers.addAll(g.servers()));
        return servers;
    }

    /** Every server's pool. */
    public List<UpstreamPool> pools() {
        List<UpstreamPool> pools = new ArrayList<>();
        byName.values().forEach(g -> g.servers().forEach(s -> pools.add(s.pool())));
        return pools;
    }

    /** The most upstream connections all pools together may open. */
    public long maxConnections() {
        long total = 0;
        for (UpstreamGroup group : byName.values()) {
            total += (long) group.servers().size() * group.settings().pool().maxConnections();
        }
        return total;
    }
}
