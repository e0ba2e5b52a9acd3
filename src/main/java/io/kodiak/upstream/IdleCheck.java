package io.kodiak.upstream;

import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.nio.NIOConnection;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * Whether a pooled connection was closed or reset by its peer while it sat idle, before its close
 * event has been handled: a non-blocking read of one byte, which returns 0 on a live, quiet
 * connection. Used before a request that must not be sent twice goes out on a reused connection:
 * when the server died a moment ago its pooled connections are already reset in the kernel, and a
 * request written on one would fail after it was sent, with no safe way to retry it; found here,
 * nothing was sent and it can go elsewhere. (Any byte found means the connection is broken anyway:
 * a pooled connection with no request outstanding has nothing to say.)
 */
final class IdleCheck {
    /**
     * One direct byte per thread: a heap buffer would cost an allocation and the JDK's copy through
     * a temporary direct one on every check; this way a check is the read system call alone.
     */
    private static final ThreadLocal<ByteBuffer> PROBE = ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(1));

    private IdleCheck() {
    }

    static boolean closedByPeer(Connection<?> connection) {
        if (!(connection instanceof NIOConnection nio) || !(nio.getChannel() instanceof SocketChannel channel)) {
            return false;
        }
        ByteBuffer probe = PROBE.get();
        probe.clear();
        try {
            return channel.read(probe) != 0;
        } catch (IOException reset) {
            return true;
        }
    }
}
