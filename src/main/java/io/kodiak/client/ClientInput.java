package io.kodiak.client;

import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.ssl.SSLUtils;

import javax.net.ssl.SSLEngine;

/**
 * Whether the client still sends. It ends when the client shuts down the sending side of its TCP
 * connection ({@link io.kodiak.transport.HalfCloseTransportFilter}, on a listener with
 * client-half-close = "answer") or sends a TLS close_notify ({@link #closeNotified}). A request
 * it sent whole is still answered then, as the service behind the proxy would answer it (and
 * HAProxy does; nginx drops it, 499); then the connection closes.
 */
final class ClientInput {
    private boolean ended;

    boolean ended() {
        return ended;
    }

    void end() {
        ended = true;
    }

    /**
     * TLS: the client's close_notify ends its input; true when the client is gone as well. TLS 1.3
     * lets a client close only its sending side and the engine can still send, so it is a
     * half-close; the end of the TCP stream that usually follows (the JDK's shutdownOutput sends
     * both, and so does a client that leaves) is then read as client-half-close says. With TLS 1.2,
     * and with Conscrypt's engine whatever the version, the engine closes both ways and can send
     * nothing more: the client is gone, and its exchange ends now instead of when its answer fails
     * to go out. (The engine's lock, taken per read here, is uncontended: the connection's writes
     * run on the same loop.)
     */
    boolean closeNotified(Connection<?> connection) {
        SSLEngine engine = SSLUtils.getSSLEngine(connection);
        if (engine == null || !engine.isInboundDone()) {
            return false;
        }
        ended = true;
        return engine.isOutboundDone();
    }
}
