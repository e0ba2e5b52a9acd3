package io.kodiak.admin;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/** What POST /reload asks of the daemon: a reload, done on the daemon's own reload thread. */
public interface ReloadService {
    /** Answers every request with "unavailable" (embedded and test runs with no daemon around them). */
    ReloadService NONE = file -> CompletableFuture.completedFuture(
            new Answer("unavailable", -1, null, List.of("this Kodiak reloads no configuration file"), List.of()));

    /** Reloads {@code configFile} (an absolute path), or the file in service when null. */
    CompletableFuture<Answer> reload(String configFile);

    /**
     * {@code configFile} is the file in service: naming it reads nothing a plain reload would not,
     * so it needs no token (see {@link ReloadGuard}).
     */
    default boolean inService(String configFile) {
        return false;
    }

    /**
     * The outcome: {@code result} applied, refused (the configuration in service stays) or failed;
     * {@code lines} the changes, or the problems of a refused file; {@code restartOnly} the keys
     * whose change waits for a restart.
     */
    record Answer(String result, long generation, String configFile, List<String> lines, List<String> restartOnly) {
    }
}
