package io.kodiak.exchange;

/**
 * Where an exchange stands. Every transition is one of the methods below; a transition an exchange
 * cannot make from where it stands is a bug and throws.
 *
 * <pre>
 *   CONNECTING --bound--> SENDING (body to come) | AWAITING (request complete)
 *   SENDING --requestSent--> AWAITING            SENDING --headForwarded--> EARLY_RESPONSE
 *   AWAITING --headForwarded--> RESPONDING     AWAITING --switched--> TUNNELLING
 *   EARLY_RESPONSE --requestSent--> RESPONDING
 *   EARLY_RESPONSE | RESPONDING | TUNNELLING --completed--> COMPLETE
 *   SENDING | AWAITING --retry--> CONNECTING (a stale pooled connection, or another server of the
 *                                            group after a reset, timeout or 502/503/504; see Exchange)
 *   CONNECTING stays CONNECTING when a connect fails and the next server is tried
 *   any phase before COMPLETE or FAILED --failed--> FAILED
 * </pre>
 */
enum Phase {
    /** Waiting for an upstream connection; request body bytes are held (bounded). */
    CONNECTING,
    /** The request head went upstream; its body is still streaming. */
    SENDING,
    /** The request is complete upstream; no response yet (response-timeout runs). */
    AWAITING,
    /** The response started before the request body ended (an early answer, say 413). */
    EARLY_RESPONSE,
    /** The response is streaming to the client. */
    RESPONDING,
    /** After a 101: both connections relay bytes until either closes. */
    TUNNELLING,
    /** The response was relayed whole (or the tunnel closed): the one successful end. */
    COMPLETE,
    /** Ended by an error or the client leaving; nothing more is written anywhere. */
    FAILED;

    Phase bound(boolean requestComplete) {
        require(this == CONNECTING);
        return requestComplete ? AWAITING : SENDING;
    }

    Phase requestSent() {
        return switch (this) {
            case SENDING -> AWAITING;
            case EARLY_RESPONSE -> RESPONDING;
            default -> throw illegal("requestSent");
        };
    }

    /** Any phase before the end. */
    Phase failed() {
        require(!isOver());
        return FAILED;
    }

    Phase headForwarded() {
        return switch (this) {
            case SENDING -> EARLY_RESPONSE;
            case AWAITING -> RESPONDING;
            default -> throw illegal("headForwarded");
        };
    }

    Phase switched() {
        require(this == AWAITING || this == SENDING);
        return TUNNELLING;
    }

    Phase completed() {
        require(this == EARLY_RESPONSE || this == RESPONDING || this == TUNNELLING);
        return COMPLETE;
    }

    Phase retry() {
        require(this == SENDING || this == AWAITING);
        return CONNECTING;
    }

    boolean isOver() {
        return this == COMPLETE || this == FAILED;
    }

    /** Some of the upstream's response reached the client: an error can no longer be answered, only cut off. */
    boolean responseStarted() {
        return this == EARLY_RESPONSE || this == RESPONDING || this == TUNNELLING;
    }

    /** An upstream connection is bound. */
    boolean hasUpstream() {
        return this != CONNECTING && !isOver();
    }

    private void require(boolean allowed) {
        if (!allowed) {
            throw illegal("transition");
        }
    }

    private IllegalStateException illegal(String transition) {
        return new IllegalStateException(transition + " from " + this);
    }
}
