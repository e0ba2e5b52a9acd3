package io.kodiak.config;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/** Where socket reads are copied to, by configuration name (proxy.buffers.memory-manager). */
public enum MemoryManagerName {
    HEAP("heap"),
    POOLED("pooled");

    private final String configName;

    MemoryManagerName(String configName) {
        this.configName = configName;
    }

    public String configName() {
        return configName;
    }

    public static Optional<MemoryManagerName> parse(String value) {
        return Arrays.stream(values()).filter(m -> m.configName.equals(value)).findFirst();
    }

    public static String allNames() {
        return Arrays.stream(values()).map(MemoryManagerName::configName).collect(Collectors.joining(", "));
    }
}
