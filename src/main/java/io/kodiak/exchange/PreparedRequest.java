package io.kodiak.exchange;

/**
 * A request as the upstream protocol prepared it, once per exchange, while the client's head is
 * still readable (its bytes belong to the read buffer): every attempt's stream sends the same one.
 * Opaque to the exchange; the protocol that prepared it reads it.
 */
public interface PreparedRequest {

    /** The exchange is over: what the request holds (its head's buffer) may go back to its pool. */
    default void release() {
    }
}
