package io.kodiak.loop;

import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.Context;
import org.glassfish.grizzly.IOEvent;
import org.glassfish.grizzly.IOEventLifeCycleListener;
import org.glassfish.grizzly.IOStrategy;
import org.glassfish.grizzly.Transport;
import org.glassfish.grizzly.strategies.AbstractIOStrategy;
import org.glassfish.grizzly.threadpool.ThreadPoolConfig;

import java.io.IOException;
import java.util.concurrent.Executor;
import java.util.logging.Logger;

/**
 * The transport's strategy with one addition: an accept that fails is reported. Grizzly drops the
 * error of a failed accept and leaves the listening socket's interest on, so at the open-file
 * limit (EMFILE) the selector wakes at once for the same pending connection, over and over: a
 * selector thread spinning at 100 % CPU for as long as the limit holds (measured, with prlimit).
 * Whoever is told ({@link AcceptFailures}) pauses accepting for a moment, as nginx and HAProxy do.
 * Every other event goes to the strategy chosen by {@code listener.io-strategy}.
 */
final class AcceptGuard extends AbstractIOStrategy {
    private static final Logger LOG = Logger.getLogger(AcceptGuard.class.getName());
    private final IOStrategy inner;
    private volatile AcceptFailures failures = (socket, error) -> { };
    private final IOEventLifeCycleListener onAcceptError = new IOEventLifeCycleListener.Adapter() {
        @Override
        public void onError(Context context, Object description) {
            if (description instanceof IOException error) {
                failures.acceptFailed(context.getConnection(), error);
            }
        }
    };

    AcceptGuard(IOStrategy inner) {
        this.inner = inner;
    }

    void reportTo(AcceptFailures failures) {
        this.failures = failures;
    }

    @Override
    public boolean executeIoEvent(Connection connection, IOEvent ioEvent, boolean isIoEventEnabled) throws IOException {
        if (ioEvent == IOEvent.SERVER_ACCEPT) {
            fireIOEvent(connection, ioEvent, onAcceptError, LOG);
            return true;
        }
        return inner.executeIoEvent(connection, ioEvent, isIoEventEnabled);
    }

    @Override
    public Executor getThreadPoolFor(Connection connection, IOEvent ioEvent) {
        return inner.getThreadPoolFor(connection, ioEvent);
    }

    @Override
    public ThreadPoolConfig createDefaultWorkerPoolConfig(Transport transport) {
        return inner.createDefaultWorkerPoolConfig(transport);
    }
}
