package io.kodiak.discovery;

import io.kodiak.config.UpstreamGroupConfig;
import io.kodiak.upstream.ServerDirectory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A group's servers from what its names resolve to now: a resolve = true server becomes one
 * server per address (its port, weight, backup and scheme), a discovery group one server per SRV
 * target address (the record's port and weight; records past the lowest priority are backups).
 * A pure function of the configured group and the answers, so that equal answers give an equal
 * group and the build keeps it as it is.
 */
final class GroupServers {
    /** A request remembers the servers it tried as bits of one long (as GroupsReader's limit). */
    static final int MAX_SERVERS = 64;

    private GroupServers() {
    }

    static ServerDirectory.Found of(UpstreamGroupConfig group, Function<DnsName, WatchedName> names) {
        if (!group.discovers()) {
            return new ServerDirectory.Found(group, null);
        }
        Map<String, UpstreamGroupConfig.Server> servers = new LinkedHashMap<>();
        List<String> unresolved = new ArrayList<>();
        if (group.srv() != null) {
            WatchedName watched = names.apply(new DnsName(DnsName.Kind.SRV, group.srv()));
            WatchedName.Known known = watched == null ? null : watched.known();
            if (known == null) {
                unresolved.add(notYet(group.srv(), watched));
            } else {
                boolean tls = group.srv().startsWith("_https.");
                int primary = known.endpoints().stream().mapToInt(Endpoint::priority).min().orElse(0);
                for (Endpoint e : known.endpoints()) {
                    // SRV weights run 0-65535, Kodiak's 1-1000: 0 ("rarely") still gets a share.
                    int weight = Math.max(1, Math.min(1000, e.weight()));
                    add(servers, server(e.address(), e.port(), weight, e.priority() != primary, tls, e.target()));
                }
            }
        }
        for (UpstreamGroupConfig.Server configured : group.servers()) {
            if (!configured.resolve()) {
                add(servers, configured);
                continue;
            }
            WatchedName watched = names.apply(new DnsName(DnsName.Kind.ADDRESSES, configured.host()));
            WatchedName.Known known = watched == null ? null : watched.known();
            if (known == null) {
                unresolved.add(notYet(configured.host(), watched));
                continue;
            }
            for (Endpoint e : known.endpoints()) {
                add(servers, server(e.address(), configured.port(), configured.weight(), configured.backup(), configured.tls(),
                        configured.host()));
            }
        }
        List<UpstreamGroupConfig.Server> list = new ArrayList<>(servers.values());
        if (list.size() > MAX_SERVERS) {
            list = list.subList(0, MAX_SERVERS);
        }
        return new ServerDirectory.Found(group.withServers(list),
                list.isEmpty() ? String.join("; ", unresolved) : null);
    }

    private static String notYet(String name, WatchedName watched) {
        String failing = watched == null ? null : watched.failing();
        return name + " has not resolved yet" + (failing != null ? " (" + failing + ")" : "");
    }

    /** The first of two servers at one address and port wins: one pool, one health per address. */
    private static void add(Map<String, UpstreamGroupConfig.Server> servers, UpstreamGroupConfig.Server server) {
        servers.putIfAbsent(server.authority(), server);
    }

    private static UpstreamGroupConfig.Server server(String address, int port, int weight, boolean backup, boolean tls,
                                                     String name) {
        String host = address.indexOf(':') >= 0 ? "[" + address + "]" : address;
        return new UpstreamGroupConfig.Server((tls ? "https://" : "http://") + host + ":" + port, address, port, weight, backup,
                tls, false, name);
    }
}
