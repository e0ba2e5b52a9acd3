package io.kodiak.exchange;

import io.kodiak.config.UpstreamGroupConfig.RetryOn;
import org.junit.jupiter.api.Test;

import javax.net.ssl.SSLHandshakeException;
import java.security.cert.CertificateException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * One classification feeds health, retries and the answer: for each way an attempt fails, the
 * client's error, the retry condition (none once the response began) and the health verdict
 * (none for a full pool, or a response cut in its body).
 */
class AttemptFailureTest {

    @Test
    void aDeadlineMeansWhatThePhaseSays() {
        assertEquals(ProxyError.REQUEST_BODY_STALLED, AttemptFailure.deadline(Phase.SENDING, false, 30_000, 60_000).error());
        assertEquals(ProxyError.UPSTREAM_STALLED, AttemptFailure.deadline(Phase.SENDING, true, 30_000, 60_000).error());
        AttemptFailure timeout = AttemptFailure.deadline(Phase.AWAITING, false, 30_000, 60_000);
        assertEquals(ProxyError.RESPONSE_TIMEOUT, timeout.error());
        assertEquals(RetryOn.TIMEOUT, timeout.retryOn());
        assertEquals("no response within response-timeout", timeout.verdict());
        assertEquals("no progress within 30000 ms", timeout.detail());
        AttemptFailure stalled = AttemptFailure.deadline(Phase.RESPONDING, false, 30_000, 60_000);
        assertEquals(ProxyError.TRANSFER_STALLED, stalled.error());
        assertNull(stalled.retryOn());
        assertNull(stalled.verdict());
        assertEquals("no progress within 60000 ms", stalled.detail());
        assertEquals(ProxyError.TRANSFER_STALLED, AttemptFailure.deadline(Phase.EARLY_RESPONSE, false, 1, 1).error());
        assertEquals(ProxyError.TUNNEL_IDLE, AttemptFailure.deadline(Phase.TUNNELLING, false, 1, 1).error());
        for (Phase none : new Phase[] {Phase.CONNECTING, Phase.COMPLETE, Phase.FAILED}) {
            assertNull(AttemptFailure.deadline(none, false, 1, 1), none.name());
        }
    }

    @Test
    void aCloseBeforeTheResponseIsAResetToRetryAndCountAgainstTheServer() {
        AttemptFailure before = AttemptFailure.closed(false, false);
        assertEquals(ProxyError.UPSTREAM_CLOSED, before.error());
        assertEquals(RetryOn.RESET, before.retryOn());
        assertEquals("a reset before any response byte", before.verdict());
        AttemptFailure inHead = AttemptFailure.closed(false, true);
        assertEquals(RetryOn.RESET, inHead.retryOn());
        assertEquals("closed in the middle of the response head", inHead.detail());
        AttemptFailure inBody = AttemptFailure.closed(true, false);
        assertNull(inBody.retryOn(), "an answer begun is never retried");
        assertEquals("a reset in the middle of the response body", inBody.verdict(), "but it counts against the server");
        assertEquals("closed in the middle of the response body", inBody.detail());
    }

    @Test
    void aFullPoolIsNoVerdictOnTheServer() {
        AttemptFailure exhausted = AttemptFailure.connect(ProxyError.POOL_EXHAUSTED, "max-connections are all open");
        assertEquals(RetryOn.CONNECT_FAILURE, exhausted.retryOn());
        assertNull(exhausted.verdict());
        AttemptFailure refused = AttemptFailure.connect(ProxyError.CONNECT_FAILED, "Connection refused");
        assertEquals(ProxyError.CONNECT_FAILED.cause, refused.verdict());
    }

    @Test
    void statusesInvalidResponsesAndHandshakes() {
        AttemptFailure status = AttemptFailure.status(RetryOn.STATUS_503, 503);
        assertEquals(ProxyError.RETRY_EXHAUSTED, status.error());
        assertEquals("status 503", status.verdict());
        AttemptFailure invalid = AttemptFailure.invalid("a bare CR");
        assertEquals(ProxyError.INVALID_RESPONSE, invalid.error());
        assertEquals(RetryOn.INVALID_RESPONSE, invalid.retryOn());
        assertEquals("invalid response (a bare CR)", invalid.detail());
        SSLHandshakeException handshake = new SSLHandshakeException("handshake failed");
        handshake.initCause(new CertificateException("no name matching a"));
        AttemptFailure tls = AttemptFailure.tlsHandshake("a:443", handshake);
        assertEquals(ProxyError.UPSTREAM_TLS, tls.error());
        assertEquals(RetryOn.CONNECT_FAILURE, tls.retryOn());
        assertEquals("TLS handshake with a:443 failed: no name matching a", tls.detail());
    }
}
