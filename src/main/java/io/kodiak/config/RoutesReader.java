package io.kodiak.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import io.kodiak.limits.LimitKey;
import io.kodiak.limits.LimitSettings;
import io.kodiak.routing.HeaderRules;
import io.kodiak.routing.HostPattern;
import io.kodiak.routing.Rewrite;
import io.kodiak.routing.Rewrites;
import io.kodiak.routing.Route;
import io.kodiak.routing.UpstreamTarget;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * proxy.routes: each entry's prefix, upstream, hosts, header rules, rewrites and limit, every
 * problem recorded under the key the user wrote (proxy.routes[2].rewrite[0].match). Also reads
 * a limits block, which proxy.limits and each route share.
 */
final class RoutesReader {
    private static final Set<String> ROUTE_KEYS = Set.of("prefix", "upstream", "preserve-host", "upgrade", "host",
            "request-headers", "response-headers", "rewrite", "limits");
    private static final Set<String> HEADER_RULE_KEYS = Set.of("set", "add", "remove");
    private static final Set<String> REWRITE_KEYS = Set.of("match", "replace");
    private static final Set<String> LIMIT_KEYS = Set.of("requests-per-second", "burst", "key", "max-keys");

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
                    problems.add(new ConfigProblem(at + "." + k, entry.getValue(k).render(),
                            "one of the route keys " + new java.util.TreeSet<>(ROUTE_KEYS)));
                }
            }
            String prefix = entry.hasPath("prefix") ? entry.getValue("prefix").unwrapped().toString() : null;
            if (prefix == null || !prefix.startsWith("/")) {
                problems.add(new ConfigProblem(at + ".prefix", String.valueOf(prefix), "a path prefix starting with /"));
                continue;
            }
            List<HostPattern> hosts = hosts(entry, at);
            for (String host : hosts.isEmpty() ? List.of("") : hosts.stream().map(HostPattern::name).toList()) {
                if (!served.add(host + " " + prefix)) {
                    problems.add(new ConfigProblem(at + ".prefix", prefix, "a prefix not used by another route "
                            + (host.isEmpty() ? "without a host" : "for host " + host)));
                }
            }
            boolean preserveHost = flag(entry, at, "preserve-host", false);
            boolean upgrade = flag(entry, at, "upgrade", true);
            HeaderRules requestHeaders = headerRules(entry, at, "request-headers", true);
            HeaderRules responseHeaders = headerRules(entry, at, "response-headers", false);
            Rewrites rewrites = rewrites(entry, at);
            LimitSettings limits = entry.hasPath("limits") ? limits(entry, at + ".limits", "limits") : LimitSettings.OFF;
            String url = entry.hasPath("upstream") ? entry.getValue("upstream").unwrapped().toString() : null;
            UpstreamTarget target = upstreamTarget(at + ".upstream", url, groups);
            if (target == null) {
                continue;
            }
            String group = target.host();
            if (!target.namesGroup()) {
                // A host:port of its own: a group of one server, shared by the routes to that origin.
                boolean tls = url.regionMatches(true, 0, "https:", 0, 6);
                group = (tls ? "https://" : "") + target.originKey();
                groups.computeIfAbsent(group, name -> UpstreamGroupConfig.single(name, url, target.host(),
                        target.port(), tls, upstream));
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
            problems.add(new ConfigProblem(at + ".host", value.render(), expected + " (leave host out to serve every name)"));
        }
        List<HostPattern> hosts = new ArrayList<>();
        for (Object name : names) {
            if (!(name instanceof String text)) {
                problems.add(new ConfigProblem(at + ".host", value.render(), expected));
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

    // ----------------------------------------------------------- header rules

    private HeaderRules headerRules(Config entry, String at, String key, boolean request) {
        if (!entry.hasPath(key)) {
            return HeaderRules.NONE;
        }
        String name = at + "." + key;
        if (entry.getValue(key).valueType() != ConfigValueType.OBJECT) {
            problems.add(new ConfigProblem(name, entry.getValue(key).render(),
                    "an object { set { NAME = \"value\" }, add { NAME = \"value\" }, remove = [NAME, ...] }"));
            return HeaderRules.NONE;
        }
        ConfigObject rules = entry.getObject(key);
        int before = problems.size();
        for (String k : rules.keySet()) {
            if (!HEADER_RULE_KEYS.contains(k)) {
                problems.add(new ConfigProblem(name + "." + k, rules.get(k).render(), "one of set, add, remove"));
            }
        }
        Map<String, String> set = fields(rules, name + ".set", "set");
        List<Map.Entry<String, String>> add = new ArrayList<>(fields(rules, name + ".add", "add").entrySet());
        List<String> remove = new ArrayList<>();
        ConfigValue removeValue = rules.get("remove");
        if (removeValue != null) {
            if (removeValue.valueType() == ConfigValueType.LIST) {
                for (Object item : (List<?>) removeValue.unwrapped()) {
                    remove.add(String.valueOf(item));
                }
            } else {
                problems.add(new ConfigProblem(name + ".remove", removeValue.render(), "a list of field names"));
            }
        }
        if (problems.size() > before) {
            return HeaderRules.NONE;
        }
        // Checked rule by rule, so the problem names the rule at fault.
        for (Map.Entry<String, String> e : set.entrySet()) {
            check(name + ".set." + e.getKey(), e.getValue(), Map.of(e.getKey(), e.getValue()), List.of(), List.of(), request);
        }
        for (Map.Entry<String, String> e : add) {
            check(name + ".add." + e.getKey(), e.getValue(), Map.of(), List.of(e), List.of(), request);
        }
        for (String removed : remove) {
            check(name + ".remove", removed, Map.of(), List.of(), List.of(removed), request);
            for (String other : set.keySet()) {
                if (other.equalsIgnoreCase(removed)) {
                    problems.add(new ConfigProblem(name + ".remove", removed, "a name not also under set (remove would delete what set writes)"));
                }
            }
            for (Map.Entry<String, String> e : add) {
                if (e.getKey().equalsIgnoreCase(removed)) {
                    problems.add(new ConfigProblem(name + ".remove", removed, "a name not also under add (remove would delete what add writes)"));
                }
            }
        }
        if (problems.size() > before) {
            return HeaderRules.NONE;
        }
        try {
            return HeaderRules.of(set, add, remove, request);
        } catch (HeaderRules.Invalid e) {
            problems.add(new ConfigProblem(name, rules.render(), e.getMessage()));
            return HeaderRules.NONE;
        }
    }

    private void check(String name, String value, Map<String, String> set, List<Map.Entry<String, String>> add,
                       List<String> remove, boolean request) {
        try {
            HeaderRules.of(set, add, remove, request);
        } catch (HeaderRules.Invalid e) {
            problems.add(new ConfigProblem(name, value, e.getMessage()));
        }
    }

    /** An object of field name → value (scalars), sorted by name so the lines go out in a stable order. */
    private Map<String, String> fields(ConfigObject rules, String name, String key) {
        ConfigValue value = rules.get(key);
        if (value == null) {
            return Map.of();
        }
        if (value.valueType() != ConfigValueType.OBJECT) {
            problems.add(new ConfigProblem(name, value.render(), "an object of field names and values, e.g. { \"X-Env\" = \"prod\" }"));
            return Map.of();
        }
        Map<String, String> fields = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        for (Map.Entry<String, ConfigValue> e : ((ConfigObject) value).entrySet()) {
            ConfigValueType type = e.getValue().valueType();
            if (type == ConfigValueType.OBJECT || type == ConfigValueType.LIST || type == ConfigValueType.NULL) {
                problems.add(new ConfigProblem(name + "." + e.getKey(), e.getValue().render(), "a string value"));
            } else if (fields.put(e.getKey(), String.valueOf(e.getValue().unwrapped())) != null) {
                problems.add(new ConfigProblem(name + "." + e.getKey(), e.getValue().render(), "each name once (names are case-insensitive)"));
            }
        }
        return new LinkedHashMap<>(fields);
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
            problems.add(new ConfigProblem(key, entry.getValue("rewrite").render(),
                    "a list of { match = \"regular expression\", replace = \"/path?query\" }"));
            return Rewrites.NONE;
        }
        List<Rewrite> compiled = new ArrayList<>();
        for (int i = 0; i < rules.size(); i++) {
            Config rule = rules.get(i);
            String ruleKey = key + "[" + i + "]";
            for (String k : rule.root().keySet()) {
                if (!REWRITE_KEYS.contains(k)) {
                    problems.add(new ConfigProblem(ruleKey + "." + k, rule.getValue(k).render(), "one of match, replace"));
                }
            }
            if (!rule.hasPath("match") || !rule.hasPath("replace")) {
                problems.add(new ConfigProblem(ruleKey, rule.root().render(), "both match and replace"));
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

    // ----------------------------------------------------------------- limits

    /**
     * A limits block at {@code path} of {@code within} ({@code name}: the key as the user wrote
     * it); keys not given take reference.conf's proxy.limits defaults.
     */
    LimitSettings limits(Config within, String name, String path) {
        if (within.getValue(path).valueType() != ConfigValueType.OBJECT) {
            problems.add(new ConfigProblem(name, within.getValue(path).render(),
                    "an object { requests-per-second = N, burst = N, key = \"client-address\" }"));
            return LimitSettings.OFF;
        }
        Config block = within.getConfig(path);
        for (String k : block.root().keySet()) {
            if (!LIMIT_KEYS.contains(k)) {
                problems.add(new ConfigProblem(name + "." + k, block.getValue(k).render(), "one of " + new java.util.TreeSet<>(LIMIT_KEYS)));
            }
        }
        Config merged = block.withFallback(ConfigFactory.defaultReference().getConfig("proxy.limits"));
        double rate = 0;
        try {
            rate = merged.getDouble("requests-per-second");
        } catch (ConfigException e) {
            rate = -1;
        }
        if (!(rate >= 0 && rate <= 1_000_000)) {
            problems.add(new ConfigProblem(name + ".requests-per-second", merged.getValue("requests-per-second").render(),
                    "a rate from 0 (off) to 1000000 requests per second, fractions allowed (0.5: one every 2 s)"));
            rate = 0;
        }
        int burst = intIn(merged, name, "burst", 0, 1_000_000, "a count of requests from 0 to 1000000 allowed at once beyond the rate");
        int maxKeys = intIn(merged, name, "max-keys", 1, 10_000_000, "a count of keys from 1 to 10000000");
        LimitKey limitKey = LimitKey.CLIENT_ADDRESS;
        try {
            limitKey = LimitKey.parse(merged.getString("key"));
        } catch (ConfigException | LimitKey.Invalid e) {
            problems.add(new ConfigProblem(name + ".key", merged.getValue("key").render(), LimitKey.EXPECTED));
        }
        return rate == 0 ? LimitSettings.OFF : new LimitSettings(rate, burst, limitKey, maxKeys);
    }

    private int intIn(Config block, String name, String key, int min, int max, String expected) {
        try {
            int value = block.getInt(key);
            if (value >= min && value <= max) {
                return value;
            }
        } catch (ConfigException e) {
            // reported below
        }
        problems.add(new ConfigProblem(name + "." + key, block.getValue(key).render(), expected));
        return min;
    }

    // ---------------------------------------------------------------- others

    private boolean flag(Config entry, String at, String key, boolean absent) {
        if (!entry.hasPath(key)) {
            return absent;
        }
        try {
            return entry.getBoolean(key);
        } catch (ConfigException e) {
            problems.add(new ConfigProblem(at + "." + key, entry.getValue(key).render(), "true or false"));
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
