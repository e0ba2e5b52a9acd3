package io.kodiak.exchange;

/**
 * How much of the request the client has sent: its body still coming, or all of it read. Apart
 * from {@link Phase}, which says where the upstream side stands: a response may begin, or the
 * request may go to another server, while the body still comes.
 *
 * <pre>
 *   RECEIVING --received--> RECEIVED      (a request without a body starts RECEIVED)
 * </pre>
 */
enum RequestProgress {
    /** Body bytes are still to come from the client. */
    RECEIVING,
    /** The whole request was read. */
    RECEIVED;

    static RequestProgress of(boolean hasBody) {
        return hasBody ? RECEIVING : RECEIVED;
    }

    RequestProgress received() {
        if (this != RECEIVING) {
            throw new IllegalStateException("request progress: received from " + this);
        }
        return RECEIVED;
    }
}
