package io.kodiak.tls;

import org.conscrypt.Conscrypt;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import java.nio.ByteBuffer;

/**
 * Frees what a Conscrypt engine holds outside the heap when its connection closes. Each Conscrypt
 * engine owns a BoringSSL {@code SSL} and, with it, a pipe (two file descriptors) that is released
 * only when the engine is closed in both directions and its close_notify has been taken out, or
 * else by its finalizer. Grizzly's TLS filter never closes an engine, so on a busy listener the
 * descriptors outlived their connections until a collection ran the finalizers: measured with one
 * handshake per request, the process reached its open-file limit within seconds ("AppData::create
 * pipe(2) failed: Too many open files", and every new handshake failed).
 *
 * <p>JDK engines need nothing of this (they hold no native state), and {@code closeInbound} on one
 * that never saw the peer's close_notify throws: they are left alone.
 */
final class NativeEngines {
    private static final ByteBuffer NOTHING = ByteBuffer.allocate(0);

    private NativeEngines() {
    }

    /** True for an engine with state outside the heap to free (Conscrypt's). */
    static boolean holdsNativeState(SSLEngine engine) {
        return engine != null && Conscrypt.isConscrypt(engine);
    }

    /** Closes {@code engine} for good if it is Conscrypt's; null or a JDK engine: nothing. */
    static void free(SSLEngine engine) {
        if (!holdsNativeState(engine)) {
            return;
        }
        engine.closeOutbound();
        try {
            engine.closeInbound();
            // What closeOutbound queued (the close_notify, and anything a handshake cut short had
            // still to send): taking it all out is what lets the engine free its SSL. The
            // connection is gone, so the bytes go nowhere. A freed engine answers CLOSED with nothing.
            ByteBuffer sink = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
            while (!engine.isOutboundDone()) {
                sink.clear();
                SSLEngineResult result = engine.wrap(NOTHING, sink);
                if (result.getStatus() == SSLEngineResult.Status.CLOSED || result.bytesProduced() == 0) {
                    break;
                }
            }
        } catch (SSLException unexpected) {
            // Conscrypt's closeInbound and a closed engine's wrap do not throw; if one ever does,
            // the engine's finalizer still frees it.
        }
    }
}
