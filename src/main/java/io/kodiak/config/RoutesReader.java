package io.kodiak.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import io.kodiak.limits.LimitSettings;
import io.kodiak.http.PercentDecoding;
import io.kodiak.routing.HeaderRules;
import io.kodiak.routing.HostPattern;
import io.kodiak.routing.Rewrite;
import io.kodiak.routing.Rewrites;
import io.kodiak.routing.Route;
import io.kodiak.routing.Router;
import io.kodiak.routing.UpstreamTarget;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * proxy.routes: each entry's prefix, upstream, hosts, header rules ({@link HeaderRulesReader}),
 * rewrites and limit ({@link LimitsReader}), every problem recorded under the key the user wrote
 * (proxy.routes[2].rewrite[0].match).
 */
final class RoutesReader {
    private static final Set<String> ROUTE_KEYS = Set.of("prefix", "upstream", "preserve-host", "upgrade", "host",
            "request-headers", "response-headers", "rewrite", "limits", "protocol");
    private static final Set<String> REWRITE_KEYS = Set.of("match", "replace");

    private final Config config;
    private final ConfigReader keys;
    private final List<ConfigProblem> problems;

    RoutesReader(Config config, ConfigReader keys, List<ConfigProblem> problems) {
        this.config = config;
        this.keys = keys;
        this.problems = problems;
    }

    List<Route> read(Map<String, UpstreamGroupConfig> groups, ProxyConfig.Upstream upstream) {
        String key = "proxy.routes";
        if (!config.hasPath(key) || config.getValue(key).valueType() != ConfigValueType.LIST) {
            problems.add(new ConfigProblem(key, keys.render(key), "a list of { prefix = \"/...\", upstream = \"http://host:port/path\" }"));
            return List.of();
        }
        List<? extends Config> entries;
        try {
            entries = config.getConfigList(key);
        } catch (ConfigException e) {
            problems.add(new ConfigProblem(key, keys.render(key), "a list of objects with prefix and upstream"));
            return List.of();
        }
        if (entries.isEmpty()) {
            problems.add(new ConfigProblem(key, "[]", "at least one route"));
        }
        List<Route> routes = new ArrayList<>();
        // A prefix per host (a host-less route counts as host ""): two routes answering the same requests are refused.
        Set<String> served = new HashSet<>();
        for (int i = 0; i < entries.size(); i++) {
            Config entry = entries.get(i);
            String at = key + "[" + i + "]";
            for (String k : entry.root().keySet()) {
                if (!ROUTE_KEYS.contains(k)) {
                    problems.add(new ConfigProblem(at + "." + k, entry.getValue(k).render(ConfigProblem.SHOWN),
                            "one of the route keys " + new TreeSet<>(ROUTE_KEYS)));
                }
            }
            String prefix = entry.hasPath("prefix") ? entry.getValue("prefix").unwrapped().toString() : null;
            if (prefix == null || !prefix.startsWith("/")) {
                problems.add(new ConfigProblem(at + ".prefix", String.valueOf(prefix), "a path prefix starting with /"));
                continue;
            }
            // Matched as request paths are: with percent-encoded unreserved characters decoded
            // ("/%7Eu/" is "/~u/"), and holding only what a request path may hold.
            String matched = PercentDecoding.unreserved(prefix);
            if (matched == null || PercentDecoding.hasExcludedCharacter(prefix)) {
                problems.add(new ConfigProblem(at + ".prefix", prefix, "a path prefix a request can match: '%' followed by two hex"
                        + " digits, and none of \\ \" < > ` { } (requests with them raw are refused)"));
                continue;
            }
            prefix = matched;
            List<HostPattern> hosts = hosts(entry, at);
            for (String host : hosts.isEmpty() ? List.of("") : hosts.stream().map(HostPattern::name).toList()) {
                if (!served.add(host + " " + prefix)) {
                    problems.add(new ConfigProblem(at + ".prefix", prefix, "a prefix not used by another route "
                            + (host.isEmpty() ? "without a host" : "for host " + host)));
                }
            }
            boolean preserveHost = flag(entry, at, "preserve-host", false);
            boolean upgrade = flag(entry, at, "upgrade", true);
            HeaderRulesReader headers = new HeaderRulesReader(problems);
            HeaderRules requestHeaders = headers.read(entry, at, "request-headers", true);
            HeaderRules responseHeaders = headers.read(entry, at, "response-headers", false);
            Rewrites rewrites = rewrites(entry, at);
            LimitSettings limits = entry.hasPath("limits")
                    ? new LimitsReader(problems).read(entry, at + ".limits", "limits", true) : LimitSettings.OFF;
            String url = entry.hasPath("upstream") ? entry.getValue("upstream").unwrapped().toString() : null;
            UpstreamTarget target = upstreamTarget(at + ".upstream", url, groups);
            if (target == null) {
                continue;
            }
            String group = target.host();
            UpstreamProtocolName protocol = protocol(entry, at, upstream.protocol());
            if (target.namesGroup()) {
                if (entry.hasPath("protocol")) {
                    problems.add(new ConfigProblem(at + ".protocol", entry.getValue("protocol").render(ConfigProblem.SHOWN),
                            "no protocol on a route to a group (set it in proxy.upstreams." + group + ".protocol)"));
                }
            } else {
                // A host:port of its own: a group of one server, shared by the routes to that origin
                // spoken to the same way.
                boolean tls = url.regionMatches(true, 0, "https:", 0, 6);
                group = (protocol == UpstreamProtocolName.H2 ? (tls ? "h2://" : "h2c://") : tls ? "https://" : "")
                        + target.originKey();
                ProxyConfig.Upstream pool = upstream.withProtocol(protocol);
                groups.computeIfAbsent(group, name -> UpstreamGroupConfig.single(name, url, target.host(),
                        target.port(), tls, pool));
            }
            routes.add(new Route(hosts, prefix, target, preserveHost, url, upgrade, group, requestHeaders,
                    responseHeaders, rewrites, limits));
        }
        return routes;
    }

    // ------------------------------------------------------------------ hosts

    /** host: one pattern or a list of them; absent: every host. */
    private List<HostPattern> hosts(Config entry, String at) {
        if (!entry.hasPath("host")) {
            return List.of();
        }
        ConfigValue value = entry.getValue("host");
        List<Object> names = value.valueType() == ConfigValueType.LIST ? new ArrayList<>((List<?>) value.unwrapped())
                : List.of(value.unwrapped());
        String expected = "a host name (api.example.com), a leading wildcard (*.example.org) or an address, or a list of them";
        if (names.isEmpty()) {
            problems.add(new ConfigProblem(at + ".host", value.render(ConfigProblem.SHOWN), expected + " (leave host out to serve every name)"));
        }
        List<HostPattern> hosts = new ArrayList<>();
        for (Object name : names) {
            if (!(name instanceof String text)) {
                problems.add(new ConfigProblem(at + ".host", value.render(ConfigProblem.SHOWN), expected));
                continue;
            }
            try {
                HostPattern host = HostPattern.parse(text);
                if (!hosts.contains(host)) {
                    hosts.add(host);
                }
            } catch (HostPattern.Invalid e) {
                problems.add(new ConfigProblem(at + ".host", text, e.getMessage()));
            }
        }
        return hosts;
    }

    // --------------------------------------------------------------- rewrites

    private Rewrites rewrites(Config entry, String at) {
        if (!entry.hasPath("rewrite")) {
            return Rewrites.NONE;
        }
        String key = at + ".rewrite";
        List<? extends Config> rules;
        try {
            rules = entry.getConfigList("rewrite");
        } catch (ConfigException e) {
            problems.add(new ConfigProblem(key, entry.getValue("rewrite").render(ConfigProblem.SHOWN),
                    "a list of { match = \"regular expression\", replace = \"/path?query\" }"));
            return Rewrites.NONE;
        }
        List<Rewrite> compiled = new ArrayList<>();
        for (int i = 0; i < rules.size(); i++) {
            Config rule = rules.get(i);
            String ruleKey = key + "[" + i + "]";
            for (String k : rule.root().keySet()) {
                if (!REWRITE_KEYS.contains(k)) {
                    problems.add(new ConfigProblem(ruleKey + "." + k, rule.getValue(k).render(ConfigProblem.SHOWN), "one of match, replace"));
                }
            }
            if (!rule.hasPath("match") || !rule.hasPath("replace")) {
                problems.add(new ConfigProblem(ruleKey, rule.root().render(ConfigProblem.SHOWN), "both match and replace"));
                continue;
            }
            String match = String.valueOf(rule.getValue("match").unwrapped());
            String replace = String.valueOf(rule.getValue("replace").unwrapped());
            try {
                compiled.add(Rewrite.of(match, replace));
            } catch (Rewrite.Invalid e) {
                problems.add(new ConfigProblem(ruleKey + (e.inMatch ? ".match" : ".replace"), e.inMatch ? match : replace,
                        e.getMessage()));
            }
        }
        return Rewrites.of(compiled);
    }

    // ---------------------------------------------------------------- others

    /** A route's own protocol toward its URL; {@code absent}: proxy.upstream.protocol. */
    private UpstreamProtocolName protocol(Config entry, String at, UpstreamProtocolName absent) {
        if (!entry.hasPath("protocol")) {
            return absent;
        }
        String value = entry.getValue("protocol").unwrapped().toString();
        return UpstreamProtocolName.parse(value).orElseGet(() -> {
            problems.add(new ConfigProblem(at + ".protocol", entry.getValue("protocol").render(ConfigProblem.SHOWN),
                    "one of " + UpstreamProtocolName.allNames()));
            return absent;
        });
    }

    private boolean flag(Config entry, String at, String key, boolean absent) {
        if (!entry.hasPath(key)) {
            return absent;
        }
        try {
            return entry.getBoolean(key);
        } catch (ConfigException e) {
            problems.add(new ConfigProblem(at + "." + key, entry.getValue(key).render(ConfigProblem.SHOWN), "true or false"));
            return absent;
        }
    }

    private UpstreamTarget upstreamTarget(String key, String url, Map<String, UpstreamGroupConfig> groups) {
        String expected = "an absolute http:// or https:// URL such as http://127.0.0.1:8080/path (no query, no fragment)";
        if (url == null) {
            problems.add(new ConfigProblem(key, "(missing)", expected));
            return null;
        }
        try {
            URI uri = new URI(url);
            boolean tls = "https".equalsIgnoreCase(uri.getScheme());
            if (!tls && !"http".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null
                    || uri.getRawQuery() != null || uri.getRawFragment() != null || uri.getRawUserInfo() != null) {
                problems.add(new ConfigProblem(key, url, expected));
                return null;
            }
            String path = uri.getRawPath() == null ? "" : uri.getRawPath();
            if (Router.hasDotSegment(path)) {
                problems.add(new ConfigProblem(key, url, "a path without . or .. segments in " + expected));
                return null;
            }
            String host = uri.getHost();
            if (groups.containsKey(host) && uri.getPort() == -1) {
                // nginx's proxy_pass http://NAME/...: the group's servers carry the addresses.
                return UpstreamTarget.group(host, path);
            }
            if (groups.containsKey(host)) {
                problems.add(new ConfigProblem(key, url, "no port after the upstream group name " + host
                        + " (its servers carry the ports)"));
                return null;
            }
            if (uri.getPort() == -1 && host.indexOf('.') < 0 && host.indexOf(':') < 0
                    && !host.equalsIgnoreCase("localhost")) {
                // A bare name without a port reads as a group name; a typo must not turn into a DNS lookup.
                problems.add(new ConfigProblem(key, url, "an upstream group defined under proxy.upstreams "
                        + (groups.isEmpty() ? "(none is)" : groups.keySet().toString())
                        + ", or a host name with a dot or an explicit port"));
                return null;
            }
            int port = uri.getPort() == -1 ? (tls ? 443 : 80) : uri.getPort();
            if (port < 1 || port > 65535) {
                problems.add(new ConfigProblem(key, url, "a port from 1 to 65535 in " + expected));
                return null;
            }
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            return new UpstreamTarget(host, port, path);
        } catch (URISyntaxException e) {
            problems.add(new ConfigProblem(key, url, expected));
            return null;
        }
    }
}
