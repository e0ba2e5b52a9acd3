package io.kodiak.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import io.kodiak.config.UpstreamGroupConfig.Balance;
import io.kodiak.config.UpstreamGroupConfig.HashKey;
import io.kodiak.config.UpstreamGroupConfig.HealthCheck;
import io.kodiak.config.UpstreamGroupConfig.Passive;
import io.kodiak.config.UpstreamGroupConfig.Retry;
import io.kodiak.config.UpstreamGroupConfig.RetryOn;
import io.kodiak.config.UpstreamGroupConfig.Server;
import io.kodiak.tls.UpstreamTlsSettings;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads {@code proxy.upstreams}: named groups of servers with their balancing, health and retry
 * settings. The defaults of a group's optional keys are written here once and documented in
 * reference.conf: balance round-robin; passive max-fails 3 within fail-timeout 10s; no active
 * checks; retry attempts 2 on connect-failure and reset within a budget of 20 %.
 */
final class GroupsReader {
    private static final Set<String> GROUP_KEYS = Set.of("servers", "balance", "hash-key", "passive", "health-check", "protocol",
            "retry", "max-connections", "connect-timeout", "response-timeout", "idle-timeout", "tls", "discovery");
    static final Set<String> UPSTREAM_TLS_KEYS = Set.of("trust", "verify-hostname", "certificate", "key", "server-name");
    private static final Set<String> SERVER_KEYS = Set.of("url", "weight", "backup", "resolve");
    private static final Set<String> DISCOVERY_KEYS = Set.of("srv");
    /** A DNS name as SRV records are named (labels may start with '_'), without a trailing dot. */
    private static final Pattern SRV_NAME = Pattern.compile("(?=.{1,253}$)([A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9])?)"
            + "(\\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9])?)+");
    /** Dotted digits, or anything with a colon: an address literal, which resolve = true has nothing to look up for. */
    private static final Pattern ADDRESS = Pattern.compile("[0-9.]+|.*:.*");
    private static final Set<String> PASSIVE_KEYS = Set.of("max-fails", "fail-timeout");
    private static final Set<String> CHECK_KEYS = Set.of("path", "interval", "timeout", "rise", "fall");
    private static final Set<String> RETRY_KEYS = Set.of("attempts", "on", "budget");
    /** Usable as the host of a route's URL (java.net.URI refuses '_'), never mistaken for an address. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z]([A-Za-z0-9-]{0,62}[A-Za-z0-9])?");
    private static final Pattern PERCENT = Pattern.compile("([0-9]{1,3})(\\.[0-9]+)?\\s*%");

    /** A request remembers the servers it tried as bits of one long. */
    static final int MAX_SERVERS = 64;
    static final Passive DEFAULT_PASSIVE = new Passive(3, Duration.ofSeconds(10));
    static final Retry DEFAULT_RETRY = new Retry(2, EnumSet.of(RetryOn.CONNECT_FAILURE, RetryOn.RESET), 0.20);

    private final ConfigReader keys;
    private final ProxyConfig.Upstream defaults;
    private final List<String> warnings;

    GroupsReader(ConfigReader keys, ProxyConfig.Upstream defaults, List<String> warnings) {
        this.keys = keys;
        this.defaults = defaults;
        this.warnings = warnings;
    }

    Map<String, UpstreamGroupConfig> read(String key) {
        Map<String, UpstreamGroupConfig> groups = new LinkedHashMap<>();
        if (!keys.has(key)) {
            return groups;
        }
        Config root = keys.config();
        if (root.getValue(key).valueType() != ConfigValueType.OBJECT) {
            keys.problem(key, keys.render(key), "an object of named groups, e.g. { orders { servers = [...] } }");
            return groups;
        }
        for (Map.Entry<String, ConfigValue> e : root.getObject(key).entrySet()) {
            String name = e.getKey();
            String at = key + "." + name;
            if (!NAME.matcher(name).matches()) {
                keys.problem(at, e.getValue().render(ConfigProblem.SHOWN), "a group name of letters, digits and '-', starting with a letter"
                        + " (it is the host of the routes' URLs)");
                continue;
            }
            if (e.getValue().valueType() != ConfigValueType.OBJECT) {
                keys.problem(at, e.getValue().render(ConfigProblem.SHOWN), "an object with servers = [...]");
                continue;
            }
            UpstreamGroupConfig group = group(name, at);
            if (group != null) {
                groups.put(name, group);
            }
        }
        return groups;
    }

    private UpstreamGroupConfig group(String name, String at) {
        unknownKeys(at, GROUP_KEYS);
        String srv = isObject(at + ".discovery") ? srv(at + ".discovery") : null;
        List<Server> servers = List.of();
        if (srv == null) {
            servers = servers(at + ".servers");
        } else if (keys.has(at + ".servers")) {
            keys.problem(at + ".servers", keys.render(at + ".servers"),
                    "no servers list in a group with discovery (its servers are the SRV records of " + srv + ")");
        }
        Balance balance = keys.has(at + ".balance")
                ? keys.choice(at + ".balance", Balance::parse, Balance.allNames(), "round-robin", Balance.ROUND_ROBIN)
                : Balance.ROUND_ROBIN;
        HashKey hashKey = null;
        if (keys.has(at + ".hash-key")) {
            String expected = "header:NAME, cookie:NAME or client-address";
            String text = keys.read(at + ".hash-key", keys.config()::getString, expected, "client-address");
            hashKey = HashKey.parse(text).orElse(null);
            if (hashKey == null) {
                keys.problem(at + ".hash-key", keys.render(at + ".hash-key"), expected);
            } else if (balance != Balance.HASH) {
                keys.problem(at + ".hash-key", keys.render(at + ".hash-key"),
                        "no hash-key unless balance = \"hash\" (balance is " + balance.configName() + ")");
            }
        } else if (balance == Balance.HASH) {
            hashKey = new HashKey(HashKey.Kind.CLIENT_ADDRESS, null);
        }
        Passive passive = DEFAULT_PASSIVE;
        if (isObject(at + ".passive")) {
            unknownKeys(at + ".passive", PASSIVE_KEYS);
            passive = new Passive(
                    optionalInt(at + ".passive.max-fails", DEFAULT_PASSIVE.maxFails(), 0, 1000, "0 (off) or a count up to 1000"),
                    optionalDuration(at + ".passive.fail-timeout", DEFAULT_PASSIVE.failTimeout(), Duration.ofSeconds(1),
                            "a duration of at least 1s, e.g. 10s"));
        }
        HealthCheck check = null;
        if (isObject(at + ".health-check")) {
            check = healthCheck(at + ".health-check");
        }
        Retry retry = DEFAULT_RETRY;
        if (isObject(at + ".retry")) {
            retry = retry(at + ".retry");
        }
        ProxyConfig.Upstream pool = new ProxyConfig.Upstream(defaults.persistentConnections(),
                optionalInt(at + ".max-connections", defaults.maxConnections(), 1, 100_000, "a connection count from 1 to 100000"),
                optionalDuration(at + ".connect-timeout", defaults.connectTimeout(), Duration.ofMillis(1), "a positive duration, e.g. 5s"),
                optionalDuration(at + ".response-timeout", defaults.responseTimeout(), Duration.ofMillis(1), "a positive duration, e.g. 30s"),
                optionalDuration(at + ".idle-timeout", defaults.idleTimeout(), Duration.ofMillis(1), "a positive duration, e.g. 60s"),
                isObject(at + ".tls") ? tls(at + ".tls") : defaults.tls(),
                keys.has(at + ".protocol") ? keys.choice(at + ".protocol", UpstreamProtocolName::parse,
                        UpstreamProtocolName.allNames(), defaults.protocol().configName(), defaults.protocol())
                        : defaults.protocol(), defaults.proxyProtocol());
        if (servers.isEmpty() && srv == null) {
            return null;
        }
        return new UpstreamGroupConfig(name, servers, balance, hashKey, passive, check, retry, pool, false, srv);
    }

    /** discovery { srv = "_http._tcp.orders.internal" }: the SRV name whose records are the group's servers. */
    private String srv(String at) {
        unknownKeys(at, DISCOVERY_KEYS);
        String expected = "an SRV record's DNS name, e.g. \"_http._tcp.orders.internal\"";
        if (!keys.has(at + ".srv")) {
            keys.problem(at + ".srv", "(missing)", expected);
            return null;
        }
        String name = keys.read(at + ".srv", keys.config()::getString, expected, "");
        String bare = name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
        if (!SRV_NAME.matcher(bare).matches()) {
            keys.problem(at + ".srv", keys.render(at + ".srv"), expected);
            return null;
        }
        return bare;
    }

    private List<Server> servers(String key) {
        String expected = "a non-empty list of server URLs (\"http://host:port\") or { url, weight, backup } objects";
        if (!keys.has(key) || keys.config().getValue(key).valueType() != ConfigValueType.LIST) {
            keys.problem(key, keys.render(key), expected);
            return List.of();
        }
        List<? extends ConfigValue> entries = keys.config().getList(key);
        if (entries.isEmpty()) {
            keys.problem(key, "[]", expected);
            return List.of();
        }
        if (entries.size() > MAX_SERVERS) {
            keys.problem(key, entries.size() + " servers", "at most " + MAX_SERVERS + " servers in one group");
            return List.of();
        }
        List<Server> servers = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        boolean ok = true;
        for (int i = 0; i < entries.size(); i++) {
            String at = key + "[" + i + "]";
            Server server = server(at, entries.get(i));
            if (server == null) {
                ok = false;
            } else if (!seen.add(server.authority())) {
                keys.problem(at, server.url(), "a server not already listed in this group");
                ok = false;
            } else {
                servers.add(server);
            }
        }
        if (ok && servers.stream().allMatch(Server::backup)) {
            keys.problem(key, keys.render(key), "at least one server that is not a backup");
            return List.of();
        }
        return ok ? List.copyOf(servers) : List.of();
    }

    private Server server(String at, ConfigValue value) {
        String url;
        int weight = 1;
        boolean backup = false;
        boolean resolve = false;
        if (value.valueType() == ConfigValueType.STRING) {
            url = (String) value.unwrapped();
        } else if (value.valueType() == ConfigValueType.OBJECT) {
            Config entry = ((com.typesafe.config.ConfigObject) value).toConfig();
            for (String k : entry.root().keySet()) {
                if (!SERVER_KEYS.contains(k)) {
                    keys.problem(at + "." + k, entry.getValue(k).render(ConfigProblem.SHOWN), "one of the server keys " + SERVER_KEYS);
                }
            }
            if (!entry.hasPath("url") || entry.getValue("url").valueType() != ConfigValueType.STRING) {
                keys.problem(at + ".url", entry.hasPath("url") ? entry.getValue("url").render(ConfigProblem.SHOWN) : "(missing)",
                        "a server URL such as \"http://127.0.0.1:8081\"");
                return null;
            }
            url = entry.getString("url");
            if (entry.hasPath("weight")) {
                ConfigValue w = entry.getValue("weight");
                if (w.valueType() != ConfigValueType.NUMBER || !(w.unwrapped() instanceof Integer n) || n < 1 || n > 1000) {
                    keys.problem(at + ".weight", w.render(ConfigProblem.SHOWN), "a whole number from 1 to 1000");
                    return null;
                }
                weight = n;
            }
            if (entry.hasPath("backup")) {
                ConfigValue b = entry.getValue("backup");
                if (b.valueType() != ConfigValueType.BOOLEAN) {
                    keys.problem(at + ".backup", b.render(ConfigProblem.SHOWN), "true or false");
                    return null;
                }
                backup = (Boolean) b.unwrapped();
            }
            if (entry.hasPath("resolve")) {
                ConfigValue r = entry.getValue("resolve");
                if (r.valueType() != ConfigValueType.BOOLEAN) {
                    keys.problem(at + ".resolve", r.render(ConfigProblem.SHOWN), "true or false");
                    return null;
                }
                resolve = (Boolean) r.unwrapped();
            }
        } else {
            keys.problem(at, value.render(ConfigProblem.SHOWN), "a server URL or { url, weight, backup, resolve }");
            return null;
        }
        String expected = "a server URL http://host:port or https://host:port (no path, query or user info: the route's URL carries the path)";
        try {
            URI uri = new URI(url);
            String path = uri.getRawPath();
            boolean tls = "https".equalsIgnoreCase(uri.getScheme());
            if (!tls && !"http".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null || uri.getRawQuery() != null
                    || uri.getRawFragment() != null || uri.getRawUserInfo() != null
                    || (path != null && !path.isEmpty() && !path.equals("/"))) {
                keys.problem(at, url, expected);
                return null;
            }
            int port = uri.getPort() == -1 ? (tls ? 443 : 80) : uri.getPort();
            if (port < 1 || port > 65535) {
                keys.problem(at, url, "a port from 1 to 65535 in " + expected);
                return null;
            }
            String host = uri.getHost();
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            if (resolve && ADDRESS.matcher(host).matches()) {
                keys.problem(at + ".resolve", "true", "false for a server given by address (" + host
                        + "): resolve = true looks a host name up in DNS");
                return null;
            }
            return new Server(url, host, port, weight, backup, tls, resolve, null);
        } catch (URISyntaxException e) {
            keys.problem(at, url, expected);
            return null;
        }
    }

    private HealthCheck healthCheck(String at) {
        unknownKeys(at, CHECK_KEYS);
        String path = keys.has(at + ".path") ? keys.read(at + ".path", keys.config()::getString, "a path", "/") : null;
        if (path == null || !path.startsWith("/") || path.chars().anyMatch(c -> c <= ' ' || c >= 127)) {
            keys.problem(at + ".path", keys.render(at + ".path"), "a request path starting with /, e.g. \"/health\"");
            path = "/";
        }
        Duration interval = optionalDuration(at + ".interval", Duration.ofSeconds(2), Duration.ofMillis(100),
                "a duration of at least 100ms, e.g. 2s");
        Duration timeout = optionalDuration(at + ".timeout", Duration.ofSeconds(1), Duration.ofMillis(1),
                "a positive duration, e.g. 1s");
        if (timeout.compareTo(interval) > 0) {
            keys.problem(at + ".timeout", keys.render(at + ".timeout"),
                    "at most the interval (" + interval.toMillis() + " ms), so that checks of one server never overlap");
        }
        int rise = optionalInt(at + ".rise", 2, 1, 100, "a count from 1 to 100");
        int fall = optionalInt(at + ".fall", 3, 1, 100, "a count from 1 to 100");
        return new HealthCheck(path, interval, timeout, rise, fall);
    }

    private Retry retry(String at) {
        unknownKeys(at, RETRY_KEYS);
        int attempts = optionalInt(at + ".attempts", DEFAULT_RETRY.attempts(), 1, 10,
                "a number of tries per request from 1 (no retry) to 10");
        Set<RetryOn> on = DEFAULT_RETRY.on();
        if (keys.has(at + ".on")) {
            String expected = "a list of conditions among " + RetryOn.allNames();
            try {
                List<String> names = keys.config().getStringList(at + ".on");
                Set<RetryOn> parsed = EnumSet.noneOf(RetryOn.class);
                for (String n : names) {
                    RetryOn.parse(n).ifPresentOrElse(parsed::add,
                            () -> keys.problem(at + ".on", keys.render(at + ".on"), expected + " (not " + n + ")"));
                }
                on = parsed;
            } catch (com.typesafe.config.ConfigException e) {
                keys.problem(at + ".on", keys.render(at + ".on"), expected);
            }
        }
        double budget = DEFAULT_RETRY.budget();
        if (keys.has(at + ".budget")) {
            String expected = "a percentage from 0% to 100%, e.g. 20%";
            ConfigValue value = keys.config().getValue(at + ".budget");
            var m = PERCENT.matcher(String.valueOf(value.unwrapped()).trim());
            double percent = m.matches() ? Double.parseDouble(m.group(1) + (m.group(2) == null ? "" : m.group(2))) : -1;
            if (value.valueType() != ConfigValueType.STRING || percent < 0 || percent > 100) {
                keys.problem(at + ".budget", value.render(ConfigProblem.SHOWN), expected);
            } else {
                budget = percent / 100;
            }
        }
        return new Retry(attempts, Set.copyOf(on), budget);
    }

    // ------------------------------------------------------------ helpers

    private boolean isObject(String key) {
        if (!keys.has(key)) {
            return false;
        }
        if (keys.config().getValue(key).valueType() != ConfigValueType.OBJECT) {
            keys.problem(key, keys.render(key), "an object { ... }");
            return false;
        }
        return true;
    }

    /**
     * A group's own upstream TLS: the keys it sets, the rest proxy.upstream.tls's as already read,
     * so a group names only what differs (a private CA, a client certificate) and a mistake in
     * proxy.upstream.tls is reported once, under its own key.
     */
    private UpstreamTlsSettings tls(String at) {
        unknownKeys(at, UPSTREAM_TLS_KEYS);
        return new TlsReader(keys, warnings).readUpstream(at, defaults.tls());
    }

    private void unknownKeys(String at, Set<String> known) {
        for (String k : keys.config().getObject(at).keySet()) {
            if (!known.contains(k)) {
                keys.problem(at + "." + k, keys.config().getObject(at).get(k).render(ConfigProblem.SHOWN), "one of the keys " + known);
            }
        }
    }

    private int optionalInt(String key, int absent, int min, int max, String expected) {
        return keys.has(key) ? keys.intInRange(key, min, max, expected) : absent;
    }

    private Duration optionalDuration(String key, Duration absent, Duration min, String expected) {
        return keys.has(key) ? keys.duration(key, min, expected) : absent;
    }
}
