package io.kodiak.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import io.kodiak.routing.HeaderRules;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A route's request-headers or response-headers block: { set { NAME = "value" }, add { ... },
 * remove = [ ... ] }. Each rule is checked on its own first, so that a problem names the rule at
 * fault (proxy.routes[0].request-headers.set.Connection), then the block is compiled whole.
 */
final class HeaderRulesReader {
    private static final Set<String> HEADER_RULE_KEYS = Set.of("set", "add", "remove");

    private final List<ConfigProblem> problems;

    HeaderRulesReader(List<ConfigProblem> problems) {
        this.problems = problems;
    }

    /** The rules at {@code entry}'s {@code key} (request-headers or response-headers); NONE when absent or wrong. */
    HeaderRules read(Config entry, String at, String key, boolean request) {
        if (!entry.hasPath(key)) {
            return HeaderRules.NONE;
        }
        String name = at + "." + key;
        if (entry.getValue(key).valueType() != ConfigValueType.OBJECT) {
            problems.add(new ConfigProblem(name, entry.getValue(key).render(ConfigProblem.SHOWN),
                    "an object { set { NAME = \"value\" }, add { NAME = \"value\" }, remove = [NAME, ...] }"));
            return HeaderRules.NONE;
        }
        ConfigObject rules = entry.getObject(key);
        int before = problems.size();
        for (String k : rules.keySet()) {
            if (!HEADER_RULE_KEYS.contains(k)) {
                problems.add(new ConfigProblem(name + "." + k, rules.get(k).render(ConfigProblem.SHOWN), "one of set, add, remove"));
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
                problems.add(new ConfigProblem(name + ".remove", removeValue.render(ConfigProblem.SHOWN), "a list of field names"));
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
            problems.add(new ConfigProblem(name, rules.render(ConfigProblem.SHOWN), e.getMessage()));
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
            problems.add(new ConfigProblem(name, value.render(ConfigProblem.SHOWN), "an object of field names and values, e.g. { \"X-Env\" = \"prod\" }"));
            return Map.of();
        }
        Map<String, String> fields = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        for (Map.Entry<String, ConfigValue> e : ((ConfigObject) value).entrySet()) {
            ConfigValueType type = e.getValue().valueType();
            if (type == ConfigValueType.OBJECT || type == ConfigValueType.LIST || type == ConfigValueType.NULL) {
                problems.add(new ConfigProblem(name + "." + e.getKey(), e.getValue().render(ConfigProblem.SHOWN), "a string value"));
            } else if (fields.put(e.getKey(), String.valueOf(e.getValue().unwrapped())) != null) {
                problems.add(new ConfigProblem(name + "." + e.getKey(), e.getValue().render(ConfigProblem.SHOWN), "each name once (names are case-insensitive)"));
            }
        }
        return new LinkedHashMap<>(fields);
    }
}
