package io.kodiak.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import io.kodiak.limits.LimitSettings;
import io.kodiak.log.AccessLogFormat;
import io.kodiak.routing.Route;

import java.io.File;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Builds a {@link ProxyConfig} from reference.conf, the user's file and -D overrides, and refuses
 * to return one while any value is wrong: every problem is collected, so one start-up attempt
 * shows the user all of them, each naming the key, the value and what was expected.
 */
public final class ConfigLoader {
    private static final String GROUPS = "proxy.upstreams";
    private static final List<String> LISTENER_KEYS = List.of("host", "port", "tls", "proxy-protocol", "proxy-protocol-trusted");
    /** proxy.upstream.tls keys without a default (absent: no client certificate, the URL's host as SNI). */
    private static final Set<String> OPTIONAL_UPSTREAM_TLS_KEYS = Set.of("upstream.tls.certificate", "upstream.tls.key",
            "upstream.tls.server-name");

    /**
     * reference.conf's proxy block alone, read once: without the -D overrides that
     * ConfigFactory.defaultReference() layers in, which would make any -Dproxy.* typo a known key.
     */
    private static final Config REFERENCE = ConfigFactory.parseResources(ConfigLoader.class.getClassLoader(), "reference.conf")
            .resolve().getConfig("proxy");

    private final Config config;
    private final List<ConfigProblem> problems = new ArrayList<>();
    /** Accepted, but worth a line in the log at start (a certificate about to expire). */
    private final List<String> warnings = new ArrayList<>();
    private final ConfigReader keys;

    private ConfigLoader(Config config) {
        this.config = config;
        this.keys = new ConfigReader(config, problems);
    }

    /** Loads {@code file} (null: defaults only) layered as -D overrides, file, reference.conf. */
    public static ProxyConfig load(File file) {
        return load(file, true);
    }

    /**
     * As {@link #load(File)}; {@code quoteParseErrors} false for a file named by someone the daemon
     * answers over the network (a reload's {@code config_file}): the parser's messages quote the
     * file's first tokens, which for a file that is not a configuration (a key, a token) are its
     * secret, so only the line is told.
     */
    public static ProxyConfig load(File file, boolean quoteParseErrors) {
        Config user = ConfigFactory.empty();
        if (file != null) {
            if (!file.isFile()) {
                throw new ConfigException(List.of(new ConfigProblem("config file", file.getPath(),
                        "an existing, readable HOCON file")));
            }
            try {
                user = ConfigFactory.parseFile(file, ConfigParseOptions.defaults().setAllowMissing(false)
                        .setIncluder(new MissingIncludes()));
            } catch (MissingIncludes.Missing e) {
                throw new ConfigException(List.of(new ConfigProblem("include", e.what,
                        "an existing file (" + file.getPath() + " includes it; a missing include is refused, not read as empty)")));
            } catch (com.typesafe.config.ConfigException e) {
                String why = quoteParseErrors ? e.getMessage()
                        : "not parsed at line " + (e.origin() == null ? "?" : e.origin().lineNumber())
                        + "; the parser's words are not repeated for a file named over the admin listener";
                throw new ConfigException(List.of(new ConfigProblem("config file", file.getPath(),
                        "valid HOCON (" + why + ")")));
            }
            if (!user.hasPath("proxy")) {
                // An empty or foreign file would otherwise load as reference.conf's defaults and
                // replace every route and listener with none.
                throw new ConfigException(List.of(new ConfigProblem("config file", file.getPath(),
                        "a Kodiak configuration: a file that sets proxy { ... } (this one sets no proxy key)")));
            }
        }
        return fromConfig(user);
    }

    /** Validates {@code user} layered over system properties and reference.conf. */
    public static ProxyConfig fromConfig(Config user) {
        ConfigFactory.invalidateCaches();
        Config merged;
        try {
            merged = ConfigFactory.defaultOverrides().withFallback(user)
                    .withFallback(ConfigFactory.defaultReference()).resolve();
        } catch (com.typesafe.config.ConfigException e) {
            throw new ConfigException(List.of(new ConfigProblem("configuration", "(unresolvable)", e.getMessage())));
        }
        ConfigLoader loader = new ConfigLoader(merged);
        // Every key of Kodiak's lives in the proxy block: another block at the top ("prxy { ... }")
        // is a typo, not a no-op. Plain values there are left alone: they may serve as ${substitutions}.
        for (Map.Entry<String, ConfigValue> e : user.root().entrySet()) {
            if (!e.getKey().equals("proxy") && e.getValue().valueType() == ConfigValueType.OBJECT) {
                loader.problems.add(new ConfigProblem(e.getKey(), e.getValue().render(ConfigProblem.SHOWN),
                        "no such block: every key of Kodiak's lives in the proxy { } block (see reference.conf)"));
            }
        }
        return loader.build();
    }

    private ProxyConfig build() {
        if (rejectUnknownKeys()) {
            // A block given as a value (proxy = 5, listener = 5): every key under it would be
            // reported missing as well, burying the one line that matters.
            throw new ConfigException(problems);
        }
        int cores = Runtime.getRuntime().availableProcessors();

        String host = keys.string("proxy.listener.host");
        int port = keys.port("proxy.listener.port");
        int selectors = keys.intInRange("proxy.listener.selector-threads", 0, 1024, "0 (one per core) or a thread count up to 1024");
        int workers = keys.intInRange("proxy.listener.worker-threads", 0, 10_000, "0 (two per core) or a thread count up to 10000");
        IoStrategyName strategy = keys.choice("proxy.listener.io-strategy", IoStrategyName::parse, IoStrategyName.allNames(),
                IoStrategyName.SAME_THREAD.configName(), IoStrategyName.SAME_THREAD);
        boolean persistent = keys.bool("proxy.listener.persistent-connections");
        Duration idle = keys.duration("proxy.listener.idle-timeout", Duration.ofSeconds(1), "a duration of at least 1s, e.g. 60s");
        int maxRequests = keys.intInRange("proxy.listener.max-requests-per-connection", -1, Integer.MAX_VALUE,
                "-1 (no limit) or a positive count");
        if (maxRequests == 0) {
            problems.add(new ConfigProblem("proxy.listener.max-requests-per-connection", "0", "-1 (no limit) or a positive count"));
        }
        long headerSize = keys.size("proxy.listener.max-header-size", 256, 1 << 20, "a size from 256 to 1m, e.g. 8k");
        long bodySize = keys.sizeOrUnlimited("proxy.listener.max-body-size");
        int maxConnections = keys.intInRange("proxy.listener.max-connections", 0, 1_000_000,
                "0 (derived from the open-file limit) or a connection count up to 1000000");
        ClientHalfClose halfClose = keys.choice("proxy.listener.client-half-close", ClientHalfClose::parse,
                ClientHalfClose.allNames(), ClientHalfClose.ABORT.configName(), ClientHalfClose.ABORT);

        boolean http2 = keys.bool("proxy.listener.http2");
        ProxyConfig.Http2 http2Settings = new ProxyConfig.Http2(
                keys.intInRange("proxy.listener.http2-settings.max-concurrent-streams", 1, 10_000,
                        "a stream count from 1 to 10000"),
                (int) keys.size("proxy.listener.http2-settings.initial-window-size", 65_535, Integer.MAX_VALUE,
                        "a size from 65535 (HTTP/2's default) to 2147483647, e.g. 1m"),
                (int) keys.size("proxy.listener.http2-settings.max-frame-size", 16_384, 16_777_215,
                        "a size from 16384 to 16777215 (RFC 9113's bounds)"));

        ProxyConfig.Listener listener = new ProxyConfig.Listener(host, port,
                selectors == 0 ? cores : selectors, workers == 0 ? cores * 2 : workers, strategy,
                persistent, idle, maxRequests, (int) headerSize, bodySize, maxConnections, halfClose,
                new TlsReader(keys, warnings).read("proxy.listener.tls"), http2 ? http2Settings : null,
                keys.bool("proxy.listener.proxy-protocol"), AddressBlock.readList(keys, "proxy.listener.proxy-protocol-trusted"));

        ProxyConfig.Upstream upstream = new ProxyConfig.Upstream(
                keys.bool("proxy.upstream.persistent-connections"),
                keys.intInRange("proxy.upstream.max-connections", 1, 100_000, "a connection count from 1 to 100000"),
                keys.duration("proxy.upstream.connect-timeout", Duration.ofMillis(1), "a positive duration, e.g. 5s"),
                keys.duration("proxy.upstream.response-timeout", Duration.ofMillis(1), "a positive duration, e.g. 30s"),
                keys.duration("proxy.upstream.idle-timeout", Duration.ofMillis(1), "a positive duration, e.g. 60s"),
                new TlsReader(keys, warnings).readUpstream("proxy.upstream.tls", null),
                keys.choice("proxy.upstream.protocol", UpstreamProtocolName::parse, UpstreamProtocolName.allNames(),
                        UpstreamProtocolName.HTTP_1_1.configName(), UpstreamProtocolName.HTTP_1_1),
                keys.choice("proxy.upstream.proxy-protocol", ProxyProtocolVersion::parse, ProxyProtocolVersion.allNames(),
                        ProxyProtocolVersion.OFF.configName(), ProxyProtocolVersion.OFF));

        ProxyConfig.Buffers buffers = new ProxyConfig.Buffers(keys.choice("proxy.buffers.memory-manager",
                MemoryManagerName::parse, MemoryManagerName.allNames(), MemoryManagerName.LOOP.configName(),
                MemoryManagerName.LOOP),
                (int) keys.size("proxy.buffers.max-queued-per-connection", 4096, 64 << 20,
                        "a size from 4k to 64m, e.g. 256k"),
                keys.size("proxy.buffers.max-queued", 0, Long.MAX_VALUE,
                        "0 (a quarter of the maximum heap) or a size, e.g. 256m"));

        List<ProxyConfig.Endpoint> moreListeners = moreListeners(host, port, listener.proxyProtocolTrusted());
        ProxyConfig.Admin admin = new ProxyConfig.Admin(keys.bool("proxy.admin.enabled"),
                keys.string("proxy.admin.host"), keys.port("proxy.admin.port"), adminToken(keys));
        for (ProxyConfig.Endpoint endpoint : ProxyConfig.endpoints(listener, moreListeners)) {
            if (admin.enabled() && admin.port() == endpoint.port() && admin.port() > 0) {
                problems.add(new ConfigProblem("proxy.admin.port", String.valueOf(admin.port()),
                        "a port other than " + endpoint.key() + ".port (the admin endpoints are never on a proxied port)"));
            }
            if (endpoint.proxyProtocol() && endpoint.proxyProtocolTrusted().isEmpty() && !loopback(endpoint.host())) {
                // Allowed (nothing else can know the balancers' addresses), but said at every start.
                warnings.add(endpoint.key() + ": proxy-protocol = true with no proxy-protocol-trusted, on " + endpoint.host()
                        + ": any peer that reaches this port can claim any client address; list the balancers' addresses");
            }
        }

        Duration grace = keys.duration("proxy.shutdown.grace-period", Duration.ZERO, "a duration of 0s or more, e.g. 30s");
        Map<String, UpstreamGroupConfig> groups = new LinkedHashMap<>(
                new GroupsReader(keys, upstream, warnings).read(GROUPS));
        RoutesReader routesReader = new RoutesReader(config, keys, problems);
        List<Route> routes = routesReader.read(groups, upstream);
        LimitSettings limits = new LimitsReader(problems).read(config, "proxy.limits", "proxy.limits", false);
        AccessLogFormat accessLog = accessLogFormat();
        if (upstream.proxyProtocol() != ProxyProtocolVersion.OFF) {
            groups.values().stream().filter(g -> g.pool().protocol() == UpstreamProtocolName.H2).findFirst().ifPresent(g ->
                    problems.add(new ConfigProblem("proxy.upstream.proxy-protocol", upstream.proxyProtocol().configName(),
                            "\"off\" while upstream " + g.name() + " speaks h2 (an HTTP/2 connection carries many"
                                    + " clients' streams, a PROXY header names one client)")));
        }
        ProxyConfig.Resolver resolver = new ResolverReader(keys).read("proxy.resolver");
        ProxyConfig.Tracing tracing = new TracingReader(keys).read("proxy.tracing");

        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        return new ProxyConfig(listener, moreListeners, routes, upstream, buffers, admin, grace, List.copyOf(groups.values()),
                limits, accessLog, List.copyOf(warnings), effectiveSettings(), resolver, tracing);
    }

    private AccessLogFormat accessLogFormat() {
        String key = "proxy.access-log.format";
        String format = keys.read(key, config::getString, "a string", AccessLogFormat.DEFAULT);
        try {
            return AccessLogFormat.parse(format);
        } catch (AccessLogFormat.Invalid e) {
            problems.add(new ConfigProblem(key, keys.render(key), e.getMessage()));
            return null;
        }
    }

    /** Every leaf key under proxy (a list counts as one value) with its value as concise HOCON, sorted by key. */
    private Map<String, String> effectiveSettings() {
        Map<String, String> settings = new java.util.TreeMap<>();
        for (Map.Entry<String, com.typesafe.config.ConfigValue> entry : config.getConfig("proxy").entrySet()) {
            settings.put("proxy." + entry.getKey(), entry.getValue().render(com.typesafe.config.ConfigRenderOptions.concise()));
        }
        return java.util.Collections.unmodifiableMap(settings);
    }

    // ------------------------------------------------------------- listeners

    /**
     * proxy.listeners: more addresses, each { host, port, tls }, sharing every other setting with
     * proxy.listener (so one instance serves 80 and 443). Two listeners on one address are refused.
     */
    private List<ProxyConfig.Endpoint> moreListeners(String defaultHost, int defaultPort, List<AddressBlock> defaultTrusted) {
        String key = "proxy.listeners";
        List<? extends Config> entries;
        try {
            entries = config.getConfigList(key);
        } catch (com.typesafe.config.ConfigException e) {
            problems.add(new ConfigProblem(key, keys.render(key), "a list of { host = \"...\", port = N, tls { ... } }"));
            return List.of();
        }
        List<ProxyConfig.Endpoint> endpoints = new ArrayList<>();
        Set<String> addresses = new HashSet<>();
        if (defaultPort != 0) {
            addresses.add(address(defaultHost, defaultPort));
        }
        for (int i = 0; i < entries.size(); i++) {
            String at = key + "[" + i + "]";
            ConfigReader entry = keys.entry(entries.get(i), at);
            for (Map.Entry<String, ConfigValue> k : entries.get(i).root().entrySet()) {
                if (!LISTENER_KEYS.contains(k.getKey())) {
                    entry.problem(k.getKey(), k.getValue().render(ConfigProblem.SHOWN), "one of the listener keys " + LISTENER_KEYS
                            + " (every other setting is proxy.listener's)");
                }
            }
            String host = entry.has("host") ? entry.string("host") : defaultHost;
            if (!entry.has("port")) {
                entry.problem("port", "(missing)", "a port number from 1 to 65535 (0: any free port)");
                continue;
            }
            int port = entry.port("port");
            if (port != 0 && !addresses.add(address(host, port))) {
                entry.problem("port", String.valueOf(port), "an address (host and port) no other listener uses");
            }
            // Not inherited from proxy.listener: one port behind the balancer, another without.
            boolean proxyProtocol = entry.has("proxy-protocol") && entry.bool("proxy-protocol");
            // Inherited: the balancers' addresses are usually the same for every port behind them.
            List<AddressBlock> trusted = entry.has("proxy-protocol-trusted")
                    ? AddressBlock.readList(entry, "proxy-protocol-trusted") : defaultTrusted;
            endpoints.add(new ProxyConfig.Endpoint(at, host, port, new TlsReader(entry, warnings).read("tls"), proxyProtocol,
                    trusted));
        }
        return List.copyOf(endpoints);
    }

    /** A loopback host: only this machine reaches it. */
    private static boolean loopback(String host) {
        java.net.InetAddress literal = AddressLiterals.parse(host);
        return literal != null ? literal.isLoopbackAddress() : host.equalsIgnoreCase("localhost");
    }

    private static String address(String host, int port) {
        return host.toLowerCase(java.util.Locale.ROOT) + " " + port;
    }

    // ------------------------------------------------------------ scalar keys

    /**
     * Keys the reference does not know, and blocks given as something else than a block (true
     * then), against {@link #REFERENCE}.
     */
    private boolean rejectUnknownKeys() {
        if (!config.hasPath("proxy")) {
            return false;
        }
        ConfigValue proxy = config.getValue("proxy");
        if (proxy.valueType() != ConfigValueType.OBJECT) {
            problems.add(new ConfigProblem("proxy", proxy.render(ConfigProblem.SHOWN),
                    "a block of keys, proxy { ... } (see reference.conf)"));
            return true;
        }
        boolean blockAsValue = false;
        for (Map.Entry<String, ConfigValue> e : config.getConfig("proxy").entrySet()) {
            String path = e.getKey();
            // Lists (and -D overrides of their items, proxy.routes.0.prefix) and open-ended blocks:
            // their own readers check each key.
            if (path.equals("routes") || path.startsWith("routes.") || path.startsWith("listeners.")
                    || path.startsWith("upstreams.") || path.startsWith("limits.")
                    || path.startsWith("listener.tls.") || OPTIONAL_UPSTREAM_TLS_KEYS.contains(path)) {
                continue;
            }
            String value = e.getValue().render(ConfigProblem.SHOWN);
            if (!REFERENCE.hasPath(path)) {
                problems.add(new ConfigProblem("proxy." + path, value, "no such key (see reference.conf for the keys Kodiak knows)"));
            } else if (REFERENCE.getValue(path).valueType() == ConfigValueType.OBJECT
                    && e.getValue().valueType() != ConfigValueType.OBJECT) {
                problems.add(new ConfigProblem("proxy." + path, value, "a block of keys, " + path + " { ... } (see reference.conf)"));
                blockAsValue = true;
            }
        }
        return blockAsValue;
    }


    /** proxy.admin.token-file: "" for none; else read now, so a reload picks up a rotated token. */
    private static AdminToken adminToken(ConfigReader keys) {
        String key = "proxy.admin.token-file";
        String file = keys.read(key, keys.config()::getString, "a file name, or \"\" for none", "");
        if (file.isBlank()) {
            return null;
        }
        AdminToken.Read read = AdminToken.read(java.nio.file.Path.of(file));
        if (read.problem() != null) {
            keys.problem(key, keys.render(key), read.problem());
        }
        return read.token();
    }
}