package io.kodiak.listener;

import io.kodiak.config.IoStrategyName;
import org.glassfish.grizzly.IOStrategy;
import org.glassfish.grizzly.strategies.LeaderFollowerNIOStrategy;
import org.glassfish.grizzly.strategies.SameThreadIOStrategy;
import org.glassfish.grizzly.strategies.SimpleDynamicNIOStrategy;
import org.glassfish.grizzly.strategies.WorkerThreadIOStrategy;

/** Maps configuration names to Grizzly's IOStrategy singletons. */
final class IoStrategies {
    private IoStrategies() {
    }

    static IOStrategy of(IoStrategyName name) {
        return switch (name) {
            case SAME_THREAD -> SameThreadIOStrategy.getInstance();
            case WORKER_THREAD -> WorkerThreadIOStrategy.getInstance();
            case DYNAMIC -> SimpleDynamicNIOStrategy.getInstance();
            case LEADER_FOLLOWER -> LeaderFollowerNIOStrategy.getInstance();
        };
    }
}
