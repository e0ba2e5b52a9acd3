package io.kodiak.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueType;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Typed reads of single keys from the merged configuration. A wrong value is recorded as a
 * {@link ConfigProblem} (key, value, what was expected) and a fallback returned, so that loading
 * goes on and reports every problem at once.
 */
final class ConfigReader {
    private final Config config;
    private final List<ConfigProblem> problems;
    /** How the user names {@code config}'s root: empty for the whole file, "proxy.listeners[1]." for a list entry. */
    private final String prefix;

    ConfigReader(Config config, List<ConfigProblem> problems) {
        this(config, problems, "");
    }

    private ConfigReader(Config config, List<ConfigProblem> problems, String prefix) {
        this.config = config;
        this.problems = problems;
        this.prefix = prefix;
    }

    /**
     * A reader of one entry of a list (which has no path of its own), whose problems name the key
     * as the user would find it: {@code at} + "." + the key inside the entry.
     */
    ConfigReader entry(Config entry, String at) {
        return new ConfigReader(entry, problems, prefix + at + ".");
    }

    void problem(String key, String value, String expected) {
        problems.add(new ConfigProblem(name(key), value, expected));
    }

    /** {@code key} as the user finds it in the file (with the list entry it is in). */
    String name(String key) {
        return prefix + key;
    }

    boolean has(String key) {
        return config.hasPath(key);
    }

    Config config() {
        return config;
    }

    <T> T read(String key, Function<String, T> getter, String expected, T fallback) {
        try {
            return getter.apply(key);
        } catch (com.typesafe.config.ConfigException e) {
            problem(key, render(key), expected);
            return fallback;
        }
    }

    String render(String key) {
        try {
            return config.hasPath(key) ? config.getValue(key).render(ConfigProblem.SHOWN) : "(missing)";
        } catch (com.typesafe.config.ConfigException e) {
            return "(unreadable)";
        }
    }

    String string(String key) {
        String value = read(key, config::getString, "a non-empty string", "");
        if (value.isBlank() && config.hasPath(key)) {
            problem(key, render(key), "a non-empty host name or address");
        }
        return value;
    }

    boolean bool(String key) {
        return read(key, config::getBoolean, "true or false", false);
    }

    /** 0 asks the OS for a free port (tests use it); anything else must be a real TCP port. */
    int port(String key) {
        return intInRange(key, 0, 65535, "a port number from 1 to 65535 (0: any free port)");
    }

    int intInRange(String key, int min, int max, String expected) {
        int value = read(key, config::getInt, expected, min);
        if (value < min || value > max) {
            problem(key, render(key), expected);
        }
        return value;
    }

    /** A number from {@code min} to {@code max}; NaN is no number. */
    double doubleInRange(String key, double min, double max, String expected) {
        double value = read(key, config::getDouble, expected, min);
        if (!(value >= min && value <= max)) {
            problem(key, render(key), expected);
            return min;
        }
        return value;
    }

    Duration duration(String key, Duration min, String expected) {
        Duration value = read(key, config::getDuration, expected, min);
        if (value.compareTo(min) < 0) {
            problem(key, render(key), expected);
        } else if (value.compareTo(MAX_DURATION) > 0) {
            // Timers here count milliseconds in an int (Grizzly's, the sockets'): a longer value
            // would be cut short or wrap, so it is refused rather than clamped in silence.
            problem(key, render(key), expected + ", at most 24d");
            return min;
        }
        return value;
    }

    /** The longest duration any key takes: 2^31-1 milliseconds, about 24.8 days. */
    static final Duration MAX_DURATION = Duration.ofMillis(Integer.MAX_VALUE);

    long size(String key, long min, long max, String expected) {
        long value = read(key, k -> config.getBytes(k), expected, min);
        if (value < min || value > max) {
            problem(key, render(key), expected);
        }
        return value;
    }

    long sizeOrUnlimited(String key) {
        String expected = "\"unlimited\" or a size of at least 0, e.g. 100m";
        if (config.hasPath(key) && config.getValue(key).valueType() == ConfigValueType.STRING
                && "unlimited".equals(config.getString(key))) {
            return -1;
        }
        long value = read(key, k -> config.getBytes(k), expected, -1L);
        if (value < 0) {
            problem(key, render(key), expected);
        }
        return value;
    }

    /** One of a fixed set of names; {@code fallback} stands in while the problem is reported. */
    <T> T choice(String key, Function<String, Optional<T>> parse, String names, String fallbackName, T fallback) {
        String expected = "one of " + names;
        String value = read(key, config::getString, expected, fallbackName);
        return parse.apply(value).orElseGet(() -> {
            problem(key, render(key), expected);
            return fallback;
        });
    }
}
