package io.kodiak.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueType;
import io.kodiak.limits.LimitKey;
import io.kodiak.limits.LimitSettings;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * A limits block, which proxy.limits and each route's limits share: requests-per-second, burst,
 * key, max-keys. The rate's floor keeps the bucket arithmetic in range: at 0.001 per second and a
 * burst of 1,000,000 the tolerance is 10^18 ns, under a long's 9.2 * 10^18.
 */
final class LimitsReader {
    private static final Set<String> LIMIT_KEYS = Set.of("requests-per-second", "burst", "key", "max-keys");
    private static final double MIN_RATE = 0.001;

    private final List<ConfigProblem> problems;

    LimitsReader(List<ConfigProblem> problems) {
        this.problems = problems;
    }

    /**
     * A limits block at {@code path} of {@code within} ({@code name}: the key as the user wrote
     * it); keys not given take reference.conf's proxy.limits defaults. {@code route}: a route's
     * block, which must give its rate when it gives anything (else its other keys would do nothing).
     */
    LimitSettings read(Config within, String name, String path, boolean route) {
        if (within.getValue(path).valueType() != ConfigValueType.OBJECT) {
            problems.add(new ConfigProblem(name, within.getValue(path).render(ConfigProblem.SHOWN),
                    "an object { requests-per-second = N, burst = N, key = \"client-address\" }"));
            return LimitSettings.OFF;
        }
        Config block = within.getConfig(path);
        for (String k : block.root().keySet()) {
            if (!LIMIT_KEYS.contains(k)) {
                problems.add(new ConfigProblem(name + "." + k, block.getValue(k).render(ConfigProblem.SHOWN), "one of " + new TreeSet<>(LIMIT_KEYS)));
            }
        }
        Config merged = block.withFallback(ConfigFactory.defaultReference().getConfig("proxy.limits"));
        double rate = 0;
        try {
            rate = merged.getDouble("requests-per-second");
        } catch (ConfigException e) {
            rate = -1;
        }
        if (!(rate == 0 || rate >= MIN_RATE && rate <= 1_000_000)) {
            problems.add(new ConfigProblem(name + ".requests-per-second", merged.getValue("requests-per-second").render(ConfigProblem.SHOWN),
                    "0 (off) or a rate from 0.001 to 1000000 requests per second, fractions allowed (0.5: one every 2 s)"));
            rate = 0;
        }
        if (route && !block.root().isEmpty() && !block.hasPath("requests-per-second")) {
            problems.add(new ConfigProblem(name + ".requests-per-second", "(missing)",
                    "a rate for this route's limit (its other keys do nothing without one; 0 turns it off)"));
        }
        ConfigReader keys = new ConfigReader(merged, problems).entry(merged, name);
        int burst = keys.intInRange("burst", 0, 1_000_000, "a count of requests from 0 to 1000000 allowed at once beyond the rate");
        int maxKeys = keys.intInRange("max-keys", 1, 10_000_000, "a count of keys from 1 to 10000000");
        LimitKey limitKey = LimitKey.CLIENT_ADDRESS;
        try {
            limitKey = LimitKey.parse(merged.getString("key"));
        } catch (ConfigException | LimitKey.Invalid e) {
            problems.add(new ConfigProblem(name + ".key", merged.getValue("key").render(ConfigProblem.SHOWN), LimitKey.EXPECTED));
        }
        return rate == 0 ? LimitSettings.OFF : new LimitSettings(rate, burst, limitKey, maxKeys);
    }
}
