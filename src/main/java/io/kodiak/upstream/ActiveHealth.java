package io.kodiak.upstream;

/**
 * The result of active checks: HAProxy's fall/rise. A server starts UP; {@code fall} failed
 * checks in a row take it DOWN, {@code rise} passed checks in a row bring it back.
 */
final class ActiveHealth {
    enum State { UP, DOWN }

    private final int rise;
    private final int fall;
    private volatile State state = State.UP;
    // Guarded by this.
    private int streak;

    ActiveHealth(int rise, int fall) {
        this.rise = rise;
        this.fall = fall;
    }

    /** New rules (a reload changed the check) that keep this verdict: a DOWN server stays out until it passes {@code rise} checks. */
    ActiveHealth under(int nextRise, int nextFall) {
        ActiveHealth next = new ActiveHealth(nextRise, nextFall);
        next.state = state;
        return next;
    }

    State state() {
        return state;
    }

    boolean isUp() {
        return state == State.UP;
    }

    /** One check's outcome; returns the new state when it changed, else null. */
    synchronized State record(boolean passed) {
        if (state == State.UP) {
            streak = passed ? 0 : streak + 1;
            if (streak >= fall) {
                state = State.DOWN;
                streak = 0;
                return state;
            }
        } else {
            streak = passed ? streak + 1 : 0;
            if (streak >= rise) {
                state = State.UP;
                streak = 0;
                return state;
            }
        }
        return null;
    }
}
