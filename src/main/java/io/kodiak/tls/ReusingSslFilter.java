package io.kodiak.tls;

import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;
import org.glassfish.grizzly.nio.NIOConnection;
import org.glassfish.grizzly.ssl.SSLConnectionContext;
import org.glassfish.grizzly.ssl.SSLEngineConfigurator;
import org.glassfish.grizzly.ssl.SSLFilter;
import org.glassfish.grizzly.ssl.SSLUtils;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import java.io.IOException;

/**
 * Grizzly's SSLFilter with its encrypted output given back once written. Grizzly wraps each write
 * into a buffer from a per-thread cache (a packet and a half, about 25 KiB for TLS 1.3) that goes
 * back to the cache when disposed, but never marks it disposable: the transport's writer releases
 * only disposable buffers, so every response allocated and zeroed a new one. Profiled at 100 B
 * keep-alive over TLS, that was two thirds of the bytes allocated and about a third of the CPU.
 * Marked disposable, the writer returns it after the last byte is written (or Grizzly's copy-on-queue
 * cloner after copying it), and the next write on that thread reuses it.
 *
 * <p>This leans on Grizzly 2.3.35's internals (read for it: the writer releases a message once,
 * after completion, and never on failure; the cloner's copies take the original's place before it
 * is released): re-read them on any Grizzly upgrade. The forwarding suite's TLS run (100 MiB each
 * way, digests compared) is what would show a buffer reused too early.
 */
class ReusingSslFilter extends SSLFilter {
    ReusingSslFilter(SSLEngineConfigurator server, SSLEngineConfigurator client) {
        super(server, client);
    }

    @Override
    protected Buffer wrapAll(FilterChainContext ctx, SSLConnectionContext sslCtx) throws SSLException {
        return SSLUtils.allowDispose(super.wrapAll(ctx, sslCtx));
    }

    /**
     * Bytes that arrive after the engine's inbound side is done (the peer's close_notify came, or
     * the connection closed and its engine was freed) are dropped and the connection closes.
     * Grizzly hands bytes an engine did not consume back to it as the next read's input; a closed
     * Conscrypt engine consumes nothing (the JDK's takes the record), so without this the same
     * bytes went round on the selector thread for good.
     */
    @Override
    public NextAction handleRead(FilterChainContext ctx) throws IOException {
        SSLEngine engine = SSLUtils.getSSLEngine(ctx.getConnection());
        if (engine != null && engine.isInboundDone()) {
            Object message = ctx.getMessage();
            if (message instanceof Buffer buffer) {
                buffer.tryDispose();
            }
            ctx.getConnection().closeSilently();
            return ctx.getStopAction();
        }
        return super.handleRead(ctx);
    }

    /**
     * A closed connection's engine lets go of what it holds outside the heap (Conscrypt's, see
     * {@link NativeEngines}), later, on the connection's own selector thread. Not here: the close
     * event comes before the socket is closed, often from the other connection's thread, and a read
     * of this connection may still be under way or come before the socket closes; Grizzly feeds a
     * read that a closed engine does not consume back to the engine again and again. A task queued
     * on the selector thread runs after the read in progress, and beside the socket's own close.
     */
    @Override
    public NextAction handleClose(FilterChainContext ctx) throws IOException {
        SSLEngine engine = SSLUtils.getSSLEngine(ctx.getConnection());
        if (NativeEngines.holdsNativeState(engine) && ctx.getConnection() instanceof NIOConnection connection) {
            connection.getSelectorRunner().getTransport().getSelectorHandler().enque(connection.getSelectorRunner(), () -> {
                NativeEngines.free(engine);
                return true;
            }, null);
        }
        return super.handleClose(ctx);
    }
}
