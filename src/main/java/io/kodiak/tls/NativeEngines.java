package io.kodiak.tls;

import org.conscrypt.Conscrypt;

import javax.net.ssl.SSLEngine;
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
    /** Room for a close_notify record (TLS 1.3: 24 bytes) with margin. */
    private static final int CLOSE_NOTIFY_ROOM = 256;
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
        } catch (SSLException notExpected) {
            // Conscrypt's closeInbound does not throw; JSSE's would, and is never asked.
        }
        try {
            // The close_notify that closeOutbound queued: taking it out is what lets the engine
            // free its SSL. The connection is gone, so the bytes go nowhere.
            engine.wrap(NOTHING, ByteBuffer.allocate(CLOSE_NOTIFY_ROOM));
        } catch (SSLException | RuntimeException alreadyFreed) {
            // Freed already (a failed handshake frees at once), or closed meanwhile by a writer.
        }
    }
}
