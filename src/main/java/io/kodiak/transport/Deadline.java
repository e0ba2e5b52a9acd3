package io.kodiak.transport;

import org.glassfish.grizzly.utils.DelayedExecutor;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * A deadline (epoch millis) that Grizzly's timer scan reads: {@link #NONE} while nothing is due,
 * {@link DelayedExecutor#UNSET_TIMEOUT} once its owner is closed, so that the next scan drops the
 * entry. Once UNSET it stays UNSET: an owner finishing after its close must not put a deadline back,
 * or the entry would stay queued for good. One per connection, joined to the timer queue once.
 */
public final class Deadline {
    /** Nothing due: far in the future, so the timer scan keeps the entry without firing. */
    public static final long NONE = Long.MAX_VALUE;

    private final AtomicLong at = new AtomicLong(NONE);

    public long get() {
        return at.get();
    }

    /** Sets the deadline (epoch millis, or {@link #NONE}) unless the owner is closed. */
    public void set(long millis) {
        long current;
        do {
            current = at.get();
            if (current == DelayedExecutor.UNSET_TIMEOUT) {
                return;
            }
        } while (!at.compareAndSet(current, millis));
    }

    /** Clears the deadline {@code expired} if nobody set another since it was read; false when somebody did. */
    public boolean clearIfStill(long expired) {
        return at.compareAndSet(expired, NONE);
    }

    /** The owner is closed: the timer drops the entry at its next scan. */
    public void close() {
        at.set(DelayedExecutor.UNSET_TIMEOUT);
    }

    /** The timer's view of owners of a deadline: where each one's is kept. */
    public static <T> DelayedExecutor.Resolver<T> resolver(Function<T, Deadline> of) {
        return new DelayedExecutor.Resolver<>() {
            @Override
            public boolean removeTimeout(T owner) {
                of.apply(owner).close();
                return true;
            }

            @Override
            public long getTimeoutMillis(T owner) {
                return of.apply(owner).get();
            }

            @Override
            public void setTimeoutMillis(T owner, long timeoutMillis) {
                of.apply(owner).set(timeoutMillis);
            }
        };
    }
}
