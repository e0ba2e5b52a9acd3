package io.kodiak.tls;

import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;
import org.glassfish.grizzly.nio.NIOConnection;
import org.glassfish.grizzly.nio.SelectorRunner;
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
     * the connection closed and its engine was freed) are dropped and the connection closes, as
     * RFC 8446 §6.1 says such data is ignored. Neither the JDK's engine nor Conscrypt's consumes a
     * record once inbound is closed, and Grizzly hands bytes an engine did not consume back to it
     * as the next input: without this, one TLS record sent after a close_notify went round on the
     * selector thread for good, and every other connection of that thread waited.
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
     * {@link NativeEngines}), later, in a task on the connection's selector thread. Not at once:
     * the close event comes before the socket is closed, often from the other connection's
     * thread, and a read of this connection may be under way. With the same-thread strategy the
     * task runs after that read and beside the socket's own close; with a worker strategy a read
     * may still overlap it, which Conscrypt's engine lock and {@link #handleRead}'s rule make safe.
     * The engine is looked up when the task runs: a first read in progress may be creating it.
     * JDK engines hold nothing to free, so a connection with one queues no task.
     */
    @Override
    public NextAction handleClose(FilterChainContext ctx) throws IOException {
        Connection<?> closed = ctx.getConnection();
        SSLEngine engine = SSLUtils.getSSLEngine(closed);
        if (engine == null || NativeEngines.holdsNativeState(engine)) {
            SelectorRunner runner = closed instanceof NIOConnection nio ? nio.getSelectorRunner() : null;
            if (runner == null) {
                NativeEngines.free(SSLUtils.getSSLEngine(closed));
            } else {
                runner.getTransport().getSelectorHandler().enque(runner, () -> {
                    NativeEngines.free(SSLUtils.getSSLEngine(closed));
                    return true;
                }, null);
            }
        }
        return super.handleClose(ctx);
    }
}
