package io.kodiak.config;

import java.util.List;
import java.util.stream.Collectors;

/** Start-up refusal carrying every problem found, so the user fixes them all in one go. */
public final class ConfigException extends RuntimeException {
    private final List<ConfigProblem> problems;

    public ConfigException(List<ConfigProblem> problems) {
        super("invalid configuration:\n" + problems.stream()
                .map(p -> "  " + p).collect(Collectors.joining("\n")));
        this.problems = List.copyOf(problems);
    }

    public List<ConfigProblem> problems() {
        return problems;
    }
}
