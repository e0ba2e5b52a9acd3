package io.kodiak.config;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * An enum whose constants are written in the configuration as words ("same-thread", "round-robin"):
 * one lookup by that word and one list of the words for every such enum.
 */
public interface ConfigNamed {
    String configName();

    static <E extends Enum<E> & ConfigNamed> Optional<E> parse(Class<E> type, String word) {
        return Arrays.stream(type.getEnumConstants()).filter(e -> e.configName().equals(word)).findFirst();
    }

    static <E extends Enum<E> & ConfigNamed> String allNames(Class<E> type, String separator) {
        return Arrays.stream(type.getEnumConstants()).map(ConfigNamed::configName).collect(Collectors.joining(separator));
    }
}
