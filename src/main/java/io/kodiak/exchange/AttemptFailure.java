package io.kodiak.exchange;

import io.kodiak.config.UpstreamGroupConfig.RetryOn;
import io.kodiak.upstream.UpstreamPool;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Why one attempt failed, classified once, where it is noticed: what the client gets if it is the
 * last ({@link #error}), which retry condition it is ({@link #retryOn}; null: never retried), what
 * it says of the server's health ({@link #verdict}; null: nothing, as for a full pool), and the
 * detail for the log. Passive health, the retry decision and the answer all read this one value.
 */
record AttemptFailure(ProxyError error, RetryOn retryOn, String verdict, String detail) {

    /** No connection came: the connect failed or timed out, or the pool stayed full. Nothing was sent. */
    static AttemptFailure connect(ProxyError error, String detail) {
        return new AttemptFailure(error, RetryOn.CONNECT_FAILURE, error == ProxyError.POOL_EXHAUSTED ? null : error.cause,
                detail);
    }

    /**
     * Why no connection came, told by what failed, never by an exception's text: the budget of
     * max-connections stayed spent, the pool's wait timed out (a full pool, or a connect still
     * pending), or the connect failed. Grizzly's pool reports a connect that outlived
     * connect-timeout as the same ConnectException type as a refused one, so the time it took
     * ({@code waitedNanos}) tells them apart. {@code fresh}: a connect of its own, which never
     * waits for the pool.
     */
    static AttemptFailure connect(Throwable error, UpstreamPool pool, boolean fresh, long waitedNanos) {
        ProxyError reason;
        if (UpstreamPool.exhausted(error)) {
            reason = ProxyError.POOL_EXHAUSTED;
        } else if (error instanceof TimeoutException) {
            reason = !fresh && pool.isAtCapacity() ? ProxyError.POOL_EXHAUSTED : ProxyError.CONNECT_TIMEOUT;
        } else if (error == null || waitedNanos >= TimeUnit.MILLISECONDS.toNanos(pool.connectTimeoutMillis())) {
            reason = ProxyError.CONNECT_TIMEOUT;
        } else {
            reason = ProxyError.CONNECT_FAILED;
        }
        return connect(reason, error == null ? "connect timed out" : String.valueOf(error.getMessage()));
    }

    /** The TLS handshake with {@code server} failed: nothing of the request reached it. */
    static AttemptFailure tlsHandshake(String server, Throwable cause) {
        // The innermost message: the JDK puts the reason (an untrusted chain, no name matching) at the root.
        Throwable root = cause;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return new AttemptFailure(ProxyError.UPSTREAM_TLS, RetryOn.CONNECT_FAILURE, "a failed TLS handshake",
                "TLS handshake with " + server + " failed: " + root.getMessage());
    }

    /**
     * The connection closed under the exchange: before any response byte, in the middle of the
     * response head, or in the body. In the body the response has begun, so it is not retried, but
     * it counts against the server's passive health: a server that cuts its responses short stays
     * in rotation otherwise, as long as its health checks pass (found by bin/bench.sh faults).
     */
    static AttemptFailure closed(boolean responseBegun, boolean headBegun) {
        if (responseBegun) {
            return new AttemptFailure(ProxyError.UPSTREAM_CLOSED, null, "a reset in the middle of the response body",
                    "closed in the middle of the response body");
        }
        return headBegun
                ? new AttemptFailure(ProxyError.UPSTREAM_CLOSED, RetryOn.RESET, "a reset in the middle of the response head",
                "closed in the middle of the response head")
                : new AttemptFailure(ProxyError.UPSTREAM_CLOSED, RetryOn.RESET, "a reset before any response byte",
                "closed before any response byte");
    }

    /** The server answered a status the group retries on (502, 503, 504). */
    static AttemptFailure status(RetryOn condition, int status) {
        return new AttemptFailure(ProxyError.RETRY_EXHAUSTED, condition, "status " + status, "status " + status);
    }

    /**
     * The response broke the rules; the connection is being closed. Retried under
     * {@code invalid-response} while nothing of the answer reached the client (a broken head).
     */
    static AttemptFailure invalid(String violation) {
        return new AttemptFailure(ProxyError.INVALID_RESPONSE, RetryOn.INVALID_RESPONSE, "an invalid response",
                "invalid response (" + violation + ")");
    }

    /**
     * A deadline passed with no progress, in {@code phase}. Still receiving the request body: the
     * client stalled (408), unless its reads were stopped for the upstream ({@code clientPaused}).
     * Waiting for the response: response-timeout (504, may be retried). Streaming the response:
     * the client stopped reading or the upstream stopped sending. A quiet tunnel is closed. Null
     * in a phase where no deadline runs.
     */
    static AttemptFailure deadline(Phase phase, boolean clientPaused, long responseTimeoutMillis, long stallMillis) {
        ProxyError error = switch (phase) {
            case SENDING -> clientPaused ? ProxyError.UPSTREAM_STALLED : ProxyError.REQUEST_BODY_STALLED;
            case AWAITING -> ProxyError.RESPONSE_TIMEOUT;
            case EARLY_RESPONSE, RESPONDING -> ProxyError.TRANSFER_STALLED;
            case TUNNELLING -> ProxyError.TUNNEL_IDLE;
            default -> null;
        };
        if (error == ProxyError.RESPONSE_TIMEOUT) {
            return new AttemptFailure(error, RetryOn.TIMEOUT, "no response within response-timeout",
                    "no progress within " + responseTimeoutMillis + " ms");
        }
        return error == null ? null : new AttemptFailure(error, null, null, "no progress within " + stallMillis + " ms");
    }
}
