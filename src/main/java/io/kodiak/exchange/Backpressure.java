package io.kodiak.exchange;

import org.glassfish.grizzly.WriteHandler;

/**
 * One direction of an exchange's flow control, the same for both: after a write to the receiving
 * side, reads on the sending side go on only while the receiver's output has room;
 * otherwise they stop, and {@code resume} runs once the receiver's output has drained below its
 * cap. One wait is registered per pause, however many writes found the queue full. The exchange
 * says what resuming is by a subclass of its own, one object per direction instead of this one and
 * a lambda.
 */
abstract class Backpressure implements WriteHandler {
    /** Reads on the sending side are stopped. */
    private boolean paused;
    /** The receiver a wait is registered on (its queue's room has not been reported yet), or null. */
    private StreamSide awaiting;

    /** Lets the sending side read again (called on the exchange's loop). */
    abstract void resume();

    boolean paused() {
        return paused;
    }

    /**
     * After a write to {@code receiver}: true when the sender may go on reading; false when it must
     * stop, and {@code resume} will run once {@code receiver} has room.
     */
    boolean roomAfterWrite(StreamSide receiver) {
        if (receiver.hasRoom()) {
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
    void resumeWhenRoom(StreamSide receiver) {
        if (!paused) {
            return;
        }
        if (receiver.hasRoom()) {
            paused = false;
            resume();
        } else {
            await(receiver);
        }
    }

    private void await(StreamSide receiver) {
        if (awaiting != receiver) {
            awaiting = receiver;
            receiver.whenRoom(this);
        }
    }

    @Override
    public void onWritePossible() {
        awaiting = null;
        if (paused) {
            paused = false;
            resume();
        }
    }

    @Override
    public void onError(Throwable error) {
        // The receiver failed; its close event ends the exchange (or a retry finds a new receiver).
        awaiting = null;
    }
}
