package io.kodiak.exchange;

import io.kodiak.loop.EventLoop;
import io.kodiak.loop.EventLoops;
import org.glassfish.grizzly.Connection;

/**
 * The loop that owns an exchange (its client connection's) and the one way onto it: everything
 * on the forwarding path runs there, and an event that starts on another thread is posted to it.
 */
final class OwningLoop {
    private final EventLoop loop;
    private final ForwardingServices services;

    OwningLoop(EventLoop loop, ForwardingServices services) {
        this.loop = loop;
        this.services = services;
    }

    /** For assertions: {@code connection} is registered on this loop. */
    boolean owns(Connection<?> connection) {
        return loop == null || services.loops().of(connection) == loop;
    }

    /** For assertions: the caller runs on this loop, as everything on the forwarding path must. */
    boolean owned() {
        return EventLoops.checkOwner(loop == null || loop.inLoop() || services.drain().isExpired());
    }

    /**
     * True on the loop: the caller goes on. Elsewhere (the timer, a close asked by another thread,
     * a connect completed on a selector while the loop is a worker lane), the caller {@linkplain
     * #post posts} its event to the loop instead. Past the stop's grace period the loops are being
     * shut down and a task posted to one may never run: the calling thread ends what is left then
     * (the stop's last moments are the one time two threads may meet here). Asked before the task
     * is made: a lambda with captured arguments is an allocation per event on the common path.
     */
    boolean here() {
        return loop == null || loop.inLoop() || services.drain().isExpired();
    }

    /** Runs {@code again} on the loop, later: for a caller that is not {@linkplain #here() here}. */
    void post(Runnable again) {
        loop.post(again);
    }

    @Override
    public String toString() {
        return String.valueOf(loop);
    }
}
