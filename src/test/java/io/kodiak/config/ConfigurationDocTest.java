package io.kodiak.config;

import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/configuration.md against the keys Kodiak reads, both ways: every key has an entry (a heading
 * that is the full key in backticks, e.g. {@code ### `proxy.listener.port`}), and every entry names
 * a key that exists. The keys are reference.conf's leaves plus the keys of the list entries and
 * named blocks that reference.conf shows only in comments, taken from the readers' own key sets, so
 * a key added to a reader or to reference.conf fails here until it is documented. For each
 * reference.conf leaf with a scalar default, its entry must also show that default.
 */
class ConfigurationDocTest {
    private static final Path DOC = Path.of("docs", "configuration.md");
    /** A key's entry: a level 2-4 heading that is exactly the key in backticks. */
    private static final Pattern ENTRY = Pattern.compile("^#{2,4} `(proxy\\.[^`]+)`\\s*$", Pattern.MULTILINE);
    private static final String LISTENER_TLS = "proxy.listener.tls";
    /** The keys of an sni entry: TlsReader reads them by name, without a key set of its own. */
    private static final List<String> SNI_ENTRY_KEYS = List.of("names", "certificate", "key");

    @Test
    void documentsEveryKeyAndNoOther() throws IOException {
        List<String> documented = entries(Files.readString(DOC, StandardCharsets.UTF_8)).stream().map(Map.Entry::getKey).toList();
        List<String> problems = problems(keys(), documented);
        assertTrue(problems.isEmpty(), DOC + " and the keys Kodiak reads disagree:\n  " + String.join("\n  ", problems));
    }

    @Test
    void showsEveryDefaultOfReferenceConf() throws IOException {
        Map<String, String> entries = byKey(entries(Files.readString(DOC, StandardCharsets.UTF_8)));
        List<String> wrong = new ArrayList<>();
        referenceDefaults().forEach((key, value) -> {
            String entry = entries.get(key);
            if (entry != null && !showsDefault(entry, value)) {
                wrong.add(key + ": its entry does not show the default " + value + " (reference.conf)");
            }
        });
        assertTrue(wrong.isEmpty(), DOC + " shows other defaults than reference.conf:\n  " + String.join("\n  ", wrong));
    }

    /**
     * The entries whose Reload cell says "restart only" are the keys a reload does not apply: with
     * each of them changed at once, the daemon's reload (ConfigChanges.restartOnly) names exactly
     * those. A key newly left to a restart in the code, or newly reloadable, fails here once its
     * value is added to CHANGED.
     */
    @Test
    void marksTheRestartOnlyKeys() throws Exception {
        Map<String, String> entries = byKey(entries(Files.readString(DOC, StandardCharsets.UTF_8)));
        Set<String> documented = new TreeSet<>();
        entries.forEach((key, text) -> {
            if (reloadCell(text).startsWith("restart only")) {
                documented.add(key);
            }
        });
        String base = "proxy.listener.port = 0\nproxy.admin.port = 0\n";
        StringBuilder changed = new StringBuilder(base);
        RESTART_ONLY_VALUES.forEach((key, value) -> changed.append(key).append(" = ").append(value).append('\n'));
        ProxyConfig before = ConfigLoader.fromConfig(ConfigFactory.parseString(base));
        ProxyConfig after = ConfigLoader.fromConfig(ConfigFactory.parseString(changed.toString()));
        java.lang.reflect.Method restartOnly = Class.forName("io.kodiak.daemon.ConfigChanges")
                .getDeclaredMethod("restartOnly", ProxyConfig.class, ProxyConfig.class);
        restartOnly.setAccessible(true);
        @SuppressWarnings("unchecked")
        Set<String> applied = new TreeSet<>((List<String>) restartOnly.invoke(null, before, after));
        List<String> wrong = new ArrayList<>();
        applied.stream().filter(k -> !documented.contains(k)).forEach(k -> wrong.add("restart only, not marked so: " + k));
        documented.stream().filter(k -> !applied.contains(k)).forEach(k -> wrong.add("marked restart only, but a reload applies it: " + k));
        assertTrue(wrong.isEmpty(), DOC + ", Reload column:\n  " + String.join("\n  ", wrong));
        assertEquals(RESTART_ONLY_VALUES.keySet(), applied, "a value in RESTART_ONLY_VALUES no longer waits for a restart");
    }

    /** A value other than the default for each key a reload leaves to a restart. */
    private static final Map<String, String> RESTART_ONLY_VALUES = new java.util.TreeMap<>(Map.ofEntries(
            Map.entry("proxy.listener.selector-threads", "1023"),
            Map.entry("proxy.listener.worker-threads", "9999"),
            Map.entry("proxy.listener.io-strategy", "dynamic"),
            Map.entry("proxy.listener.max-connections", "12345"),
            Map.entry("proxy.buffers.memory-manager", "heap"),
            Map.entry("proxy.buffers.max-queued-per-connection", "1m"),
            Map.entry("proxy.buffers.max-queued", "123m"),
            Map.entry("proxy.admin.enabled", "false"),
            Map.entry("proxy.resolver.servers", "[\"127.0.0.1:5353\"]"),
            Map.entry("proxy.resolver.valid", "7s"),
            Map.entry("proxy.resolver.timeout", "3s"),
            Map.entry("proxy.tracing.enabled", "true"),
            Map.entry("proxy.tracing.sampler", "0.5"),
            Map.entry("proxy.tracing.service-name", "edge"),
            Map.entry("proxy.tracing.max-queued-spans", "100"),
            Map.entry("proxy.tracing.otlp.endpoint", "\"http://collector:4318/v1/traces\"")));

    /** The Reload column of an entry's table: the last cell of its first row of values. */
    private static String reloadCell(String entry) {
        List<String> rows = entry.lines().filter(l -> l.startsWith("|")).toList();
        if (rows.size() < 3) {
            return "";
        }
        String[] cells = rows.get(2).split("\\|");
        return cells[cells.length - 1].strip();
    }

    /** The check itself names what it finds: a key without an entry, an entry without a key, an entry twice. */
    @Test
    void namesMissingStaleAndRepeatedKeys() {
        Set<String> keys = Set.of("proxy.a.b", "proxy.a.c", "proxy.routes[].prefix");
        List<String> documented = List.of("proxy.a", "proxy.a.b", "proxy.routes", "proxy.routes[].prefix", "proxy.a.gone",
                "proxy.a.b");
        assertEquals(List.of("not documented: proxy.a.c",
                        "documented but no such key: proxy.a.gone",
                        "documented more than once: proxy.a.b"),
                problems(keys, documented));

        String doc = "## `proxy.a`\n\n### `proxy.a.b`\n\n| Syntax | Default |\n|---|---|\n| int | `5` |\n\n### `proxy.a.c`\ntext `x`\n";
        Map<String, String> entries = byKey(entries(doc));
        assertEquals(List.of("proxy.a", "proxy.a.b", "proxy.a.c"), List.copyOf(entries.keySet()));
        assertTrue(showsDefault(entries.get("proxy.a.b"), "5"));
        assertTrue(!showsDefault(entries.get("proxy.a.c"), "5"));
    }

    // ------------------------------------------------------------------ the keys

    /** Every key Kodiak reads, as documented: list entries as {@code []}, a group's name as {@code <name>}. */
    static Set<String> keys() {
        Set<String> keys = new TreeSet<>();
        leaves(reference(), "proxy", keys);

        keys.add(LISTENER_TLS);
        prefixed(keys, LISTENER_TLS + ".", keySet(TlsReader.class, "KEYS"));
        prefixed(keys, LISTENER_TLS + ".sni[].", SNI_ENTRY_KEYS);
        prefixed(keys, "proxy.listeners[].", keySet(ConfigLoader.class, "LISTENER_KEYS"));

        String route = "proxy.routes[].";
        prefixed(keys, route, keySet(RoutesReader.class, "ROUTE_KEYS"));
        prefixed(keys, route + "rewrite[].", keySet(RoutesReader.class, "REWRITE_KEYS"));
        prefixed(keys, route + "request-headers.", keySet(HeaderRulesReader.class, "HEADER_RULE_KEYS"));
        prefixed(keys, route + "response-headers.", keySet(HeaderRulesReader.class, "HEADER_RULE_KEYS"));
        prefixed(keys, route + "limits.", keySet(LimitsReader.class, "LIMIT_KEYS"));

        String group = "proxy.upstreams.<name>.";
        prefixed(keys, group, keySet(GroupsReader.class, "GROUP_KEYS"));
        prefixed(keys, group + "servers[].", keySet(GroupsReader.class, "SERVER_KEYS"));
        prefixed(keys, group + "passive.", keySet(GroupsReader.class, "PASSIVE_KEYS"));
        prefixed(keys, group + "health-check.", keySet(GroupsReader.class, "CHECK_KEYS"));
        prefixed(keys, group + "retry.", keySet(GroupsReader.class, "RETRY_KEYS"));
        prefixed(keys, group + "tls.", GroupsReader.UPSTREAM_TLS_KEYS);
        prefixed(keys, "proxy.upstream.tls.", GroupsReader.UPSTREAM_TLS_KEYS);
        return keys;
    }

    /** reference.conf's proxy block alone (ConfigFactory.defaultReference() would add -D overrides). */
    private static ConfigObject reference() {
        return ConfigFactory.parseResources(ConfigurationDocTest.class.getClassLoader(), "reference.conf")
                .resolve().getObject("proxy");
    }

    /** Every leaf under {@code object}: a scalar, a list, or an empty block (proxy.upstreams {}). */
    private static void leaves(ConfigObject object, String path, Set<String> into) {
        for (Map.Entry<String, ConfigValue> e : object.entrySet()) {
            String key = path + "." + e.getKey();
            if (e.getValue() instanceof ConfigObject child && !child.isEmpty()) {
                leaves(child, key, into);
            } else {
                into.add(key);
            }
        }
    }

    /** reference.conf's scalar defaults by key, as the value a reader reads (60s, 127.0.0.1, 9401). */
    private static Map<String, String> referenceDefaults() {
        Map<String, String> defaults = new LinkedHashMap<>();
        collectDefaults(reference(), "proxy", defaults);
        return defaults;
    }

    private static void collectDefaults(ConfigObject object, String path, Map<String, String> into) {
        for (Map.Entry<String, ConfigValue> e : object.entrySet()) {
            String key = path + "." + e.getKey();
            ConfigValueType type = e.getValue().valueType();
            if (type == ConfigValueType.OBJECT) {
                collectDefaults((ConfigObject) e.getValue(), key, into);
            } else if (type != ConfigValueType.LIST) {
                into.put(key, String.valueOf(e.getValue().unwrapped()));
            }
        }
    }

    private static void prefixed(Set<String> into, String prefix, Collection<String> names) {
        names.forEach(name -> into.add(prefix + name));
    }

    /** A reader's key set, which it keeps private: the names it accepts are the ones to document. */
    @SuppressWarnings("unchecked")
    private static Collection<String> keySet(Class<?> reader, String field) {
        try {
            Field f = reader.getDeclaredField(field);
            f.setAccessible(true);
            return (Collection<String>) f.get(null);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(reader.getSimpleName() + "." + field + " is gone: point this test at the set of keys "
                    + reader.getSimpleName() + " accepts now", e);
        }
    }

    // ------------------------------------------------------------------ the doc

    /** Each entry's key and text (up to the next heading), in the page's order; a key documented twice is listed twice. */
    static List<Map.Entry<String, String>> entries(String doc) {
        List<Map.Entry<String, String>> entries = new ArrayList<>();
        Matcher m = ENTRY.matcher(doc);
        while (m.find()) {
            int next = doc.indexOf("\n#", m.end());
            entries.add(Map.entry(m.group(1), doc.substring(m.end(), next < 0 ? doc.length() : next)));
        }
        return entries;
    }

    /** The entries by key, the first of each. */
    private static Map<String, String> byKey(List<Map.Entry<String, String>> entries) {
        Map<String, String> byKey = new LinkedHashMap<>();
        entries.forEach(e -> byKey.putIfAbsent(e.getKey(), e.getValue()));
        return byKey;
    }

    /**
     * What is wrong between {@code keys} (every key Kodiak reads) and {@code documented} (the entries'
     * keys): keys without an entry, entries naming no key, and keys with more than one entry. A block
     * that holds keys (proxy.listener, proxy.upstreams.&lt;name&gt;.retry, proxy.routes) may have an
     * entry of its own without being a key.
     */
    static List<String> problems(Set<String> keys, Collection<String> documented) {
        Set<String> allowed = new TreeSet<>(keys);
        for (String key : keys) {
            for (int dot = key.indexOf('.'); dot > 0; dot = key.indexOf('.', dot + 1)) {
                String block = key.substring(0, dot);
                allowed.add(block);
                allowed.add(block.endsWith("[]") ? block.substring(0, block.length() - 2) : block);
            }
        }
        List<String> names = List.copyOf(documented);
        List<String> problems = new ArrayList<>();
        keys.stream().filter(k -> !names.contains(k)).forEach(k -> problems.add("not documented: " + k));
        names.stream().distinct().filter(d -> !allowed.contains(d)).forEach(d -> problems.add("documented but no such key: " + d));
        List<String> seen = new ArrayList<>();
        for (String name : names) {
            if (seen.contains(name)) {
                problems.add("documented more than once: " + name);
            }
            seen.add(name);
        }
        return problems;
    }

    /** The default in backticks (bare or quoted), or as a line of its own in a code block (a long format). */
    static boolean showsDefault(String entry, String value) {
        return entry.contains("`" + value + "`") || entry.contains("`\"" + value + "\"`")
                || entry.lines().anyMatch(line -> line.equals(value));
    }
}
