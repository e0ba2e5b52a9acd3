package io.kodiak.exchange;

import io.kodiak.transport.WriteQueues;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.WriteHandler;

/**
 * One direction of an exchange's flow control, the same for both: after a write to the receiving
 * connection, reads on the sending side go on only while the receiver's write queue has room;
 * otherwise they stop, and {@code resume} runs once the receiver's queue has drained below its
 * cap. One wait is registered per pause, however many writes found the queue full.
 */
final class Backpressure implements WriteHandler {
    private final WriteQueues queues;
    private final Runnable resume;
    /** Reads on the sending side are stopped. */
    private boolean paused;
    /** The receiver a wait is registered on (its queue's room has not been reported yet), or null. */
    private Connection<?> awaiting;

    Backpressure(WriteQueues queues, Runnable resume) {
        this.queues = queues;
        this.resume = resume;
    }

    boolean paused() {
        return paused;
    }

    /**
     * After a write to {@code receiver}: true when the sender may go on reading; false when it must
     * stop, and {@code resume} will run once {@code receiver} has room.
     */
    boolean roomAfterWrite(Connection<?> receiver) {
        if (queues.hasRoom(receiver)) {
            return true;
        }
        paused = true;
        await(receiver);
        return false;
    }

    /** The sender stops with no receiver yet (a request body held while connecting): {@link #resumeWhenRoom} lifts it. */
    void pauseUntilReceiver() {
        paused = true;
    }

    /** A receiver is there: a pause lifts now if it has room, else once it has. */
    void resumeWhenRoom(Connection<?> receiver) {
        if (!paused) {
            return;
        }
        if (queues.hasRoom(receiver)) {
            paused = false;
            resume.run();
        } else {
            await(receiver);
        }
    }

    private void await(Connection<?> receiver) {
        if (awaiting != receiver) {
            awaiting = receiver;
            queues.whenRoom(receiver, this);
        }
    }

    @Override
    public void onWritePossible() {
        awaiting = null;
        if (paused) {
            paused = false;
            resume.run();
        }
    }

    @Override
    public void onError(Throwable error) {
        // The receiver failed; its close event ends the exchange (or a retry finds a new receiver).
        awaiting = null;
    }
}
