package io.kodiak.config;

import java.util.Optional;

/** The Grizzly IOStrategies a listener can run with, by their configuration names. */
public enum IoStrategyName implements ConfigNamed {
    SAME_THREAD("same-thread"),
    WORKER_THREAD("worker-thread"),
    DYNAMIC("dynamic"),
    LEADER_FOLLOWER("leader-follower");

    private final String configName;

    IoStrategyName(String configName) {
        this.configName = configName;
    }

    @Override
    public String configName() {
        return configName;
    }

    public boolean usesWorkerPool() {
        return this != SAME_THREAD;
    }

    public static Optional<IoStrategyName> parse(String value) {
        return ConfigNamed.parse(IoStrategyName.class, value);
    }

    public static String allNames() {
        return ConfigNamed.allNames(IoStrategyName.class, ", ");
    }
}
