package io.kodiak.config;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/** The Grizzly IOStrategies a listener can run with, by their configuration names. */
public enum IoStrategyName {
    SAME_THREAD("same-thread"),
    WORKER_THREAD("worker-thread"),
    DYNAMIC("dynamic"),
    LEADER_FOLLOWER("leader-follower");

    private final String configName;

    IoStrategyName(String configName) {
        this.configName = configName;
    }

    public String configName() {
        return configName;
    }

    public boolean usesWorkerPool() {
        return this != SAME_THREAD;
    }

    public static Optional<IoStrategyName> parse(String value) {
        return Arrays.stream(values()).filter(s -> s.configName.equals(value)).findFirst();
    }

    public static String allNames() {
        return Arrays.stream(values()).map(IoStrategyName::configName).collect(Collectors.joining(", "));
    }
}
