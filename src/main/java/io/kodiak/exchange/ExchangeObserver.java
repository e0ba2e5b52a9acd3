package io.kodiak.exchange;

/**
 * Receives one call per finished exchange and one per error cause, on the I/O thread that ended
 * it: implementations must be cheap and must not block (counters, histograms, not I/O).
 */
public interface ExchangeObserver {
    ExchangeObserver NONE = new ExchangeObserver() {
        @Override
        public void onExchange(String routeName, String upstream, int status, long bytesIn, long bytesOut,
                               long upstreamNanos, long totalNanos) {
        }

        @Override
        public void onError(String cause) {
        }
    };

    /**
     * An exchange ended. {@code routeName} (Route.name) and {@code upstream} (host:port) are null when Kodiak
     * answered without a route; {@code status} is 499 when the client left first;
     * {@code upstreamNanos} is -1 when no request reached an upstream (else request sent to
     * first response byte, or to the end if none came).
     */
    void onExchange(String routeName, String upstream, int status, long bytesIn, long bytesOut,
                    long upstreamNanos, long totalNanos);

    /** An error by cause: connect, connect_timeout, timeout, reset, pool_exhausted, client_abort, bad_request, ... */
    void onError(String cause);
}
