package io.kodiak.tls;

import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.ssl.SSLConnectionContext;
import org.glassfish.grizzly.ssl.SSLEngineConfigurator;
import org.glassfish.grizzly.ssl.SSLFilter;
import org.glassfish.grizzly.ssl.SSLUtils;

import javax.net.ssl.SSLException;

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
}
