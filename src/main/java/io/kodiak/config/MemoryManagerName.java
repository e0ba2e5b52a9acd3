package io.kodiak.config;

import java.util.Optional;

/** Where socket reads are copied to, by configuration name (proxy.buffers.memory-manager). */
public enum MemoryManagerName implements ConfigNamed {
    HEAP("heap"),
    EXACT("exact"),
    POOLED("pooled"),
    DIRECT("direct"),
    LOOP("loop");

    private final String configName;

    MemoryManagerName(String configName) {
        this.configName = configName;
    }

    @Override
    public String configName() {
        return configName;
    }

    public static Optional<MemoryManagerName> parse(String value) {
        return ConfigNamed.parse(MemoryManagerName.class, value);
    }

    public static String allNames() {
        return ConfigNamed.allNames(MemoryManagerName.class, ", ");
    }
}
