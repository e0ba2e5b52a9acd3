package io.kodiak.proxyprotocol;

import io.kodiak.config.ProxyProtocolVersion;
import io.kodiak.transport.OneWrite;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.Grizzly;
import org.glassfish.grizzly.attributes.Attribute;
import org.glassfish.grizzly.filterchain.BaseFilter;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;
import org.glassfish.grizzly.memory.Buffers;

import java.io.IOException;

/**
 * On connections to servers with {@code proxy.upstream.proxy-protocol} on, just above the
 * transport (below TLS, so the header precedes the handshake): the connection's first bytes
 * become the PROXY header naming the client connection it was opened for ({@link #openFor}), or
 * none (a health check: LOCAL / UNKNOWN). The connection stays that client connection's: the
 * pool keeps it idle for that client connection alone ({@link #claimant}, {@link ClientOrigin}).
 */
public final class ProxyHeaderSender extends BaseFilter {
    /** Whom the connection speaks for, and whether its header went out. */
    private static final Attribute<Claim> STATE =
            Grizzly.DEFAULT_ATTRIBUTE_BUILDER.createAttribute(ProxyHeaderSender.class.getName() + ".state");
    /** A connection whose header named nobody (a health check): it speaks for no client. */
    private static final Claim NOBODY_SENT = new Claim(null);

    private static final class Claim {
        /** Null for nobody. */
        final ClientOrigin origin;
        boolean sent;

        Claim(ClientOrigin origin) {
            this.origin = origin;
            this.sent = origin == null;
        }
    }

    private final ProxyProtocolVersion version;

    public ProxyHeaderSender(ProxyProtocolVersion version) {
        this.version = version;
    }

    /**
     * Before the connection's first write: it carries {@code client}'s exchange. The first claim
     * stands: a connection that already speaks for a client connection never speaks for another.
     * False when it does (the pool hands such a connection to no other client, so this is a
     * defect elsewhere): the caller must not send on it. Checked always, not by an assertion,
     * because the cost of a miss is one client's requests under another's address.
     */
    public static boolean openFor(Connection<?> connection, ClientOrigin client) {
        Claim claim = STATE.get(connection);
        if (claim == null) {
            STATE.set(connection, new Claim(client));
            return true;
        }
        return claim.origin == client;
    }

    /** The client connection whose header {@code connection} sent (or will send first); null when it names nobody. */
    public static ClientOrigin claimant(Connection<?> connection) {
        Claim claim = STATE.get(connection);
        return claim == null ? null : claim.origin;
    }

    @Override
    public NextAction handleWrite(FilterChainContext ctx) throws IOException {
        Connection<?> connection = ctx.getConnection();
        Claim claim = STATE.get(connection);
        if (claim != null && claim.sent) {
            return ctx.getInvokeAction();
        }
        ProxyHeader header;
        if (claim == null) {
            STATE.set(connection, NOBODY_SENT);
            header = ProxyHeader.LOCAL;
        } else {
            claim.sent = true;
            header = claim.origin.header();
        }
        byte[] bytes = ProxyHeaderWriter.write(version, header);
        Buffer first = ctx.getMessage();
        ctx.setMessage(OneWrite.of(ctx.getMemoryManager(), Buffers.wrap(ctx.getMemoryManager(), bytes), first));
        return ctx.getInvokeAction();
    }
}
