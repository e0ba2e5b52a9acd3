package io.kodiak.tls;

import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.MemoryManager;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import java.nio.ByteBuffer;

/**
 * A TLS connection's half-close: its close_notify, which ends what it sends while it goes on
 * reading. Grizzly's TLS filter never sends one (a connection it closes just ends its TCP stream),
 * so this is made here, outside the filter.
 */
public final class CloseNotify {
    private static final ByteBuffer NOTHING = ByteBuffer.allocate(0);
    private static final String TLS_1_3 = "TLSv1.3";

    private CloseNotify() {
    }

    /**
     * True when {@code engine}'s connection can end one direction and keep the other: TLS 1.3 with
     * the JDK's engine, still able to send. TLS 1.2 has no half-close (RFC 5246 §7.2.1: a peer
     * answers a close_notify with its own and closes), and Conscrypt's engine closes both ways.
     */
    public static boolean halfCloses(SSLEngine engine) {
        return !NativeEngines.holdsNativeState(engine) && !engine.isOutboundDone()
                && TLS_1_3.equals(engine.getSession().getProtocol());
    }

    /**
     * Closes {@code engine}'s sending side and returns the record that says so, to be written after
     * every record wrapped before it: the caller holds the connection's lock, under which Grizzly's
     * TLS filter wraps and queues its writes.
     */
    public static Buffer closeOutbound(SSLEngine engine, MemoryManager memory) throws SSLException {
        engine.closeOutbound();
        ByteBuffer records = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
        while (!engine.isOutboundDone()) {
            SSLEngineResult result = engine.wrap(NOTHING, records);
            if (result.getStatus() != SSLEngineResult.Status.OK && result.getStatus() != SSLEngineResult.Status.CLOSED
                    || result.bytesProduced() == 0) {
                break;
            }
        }
        records.flip();
        return Buffers.wrap(memory, records);
    }
}
