package io.kodiak.forward;

import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.Grizzly;
import org.glassfish.grizzly.attributes.Attribute;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.http.HttpHeader;
import org.glassfish.grizzly.http.HttpRequestPacket;

/**
 * Per client connection: the exchange in progress, a pipelined next request held back (its read
 * suspended) until that exchange is over, so responses leave in request order, the answer to a
 * pipelined request whose head could not be parsed (held back the same way), and the finished
 * exchange's request packets waiting to be recycled on this connection's own selector thread.
 */
final class ClientConnection {
    private static final Attribute<ClientConnection> ATTR =
            Grizzly.DEFAULT_ATTRIBUTE_BUILDER.createAttribute(ClientConnection.class.getName());

    private final Connection<?> connection;
    private Exchange current;
    private Buffer deferredRefusal;
    /** Kodiak answered in its own name and closes the connection once that answer is out. */
    private volatile boolean closing;
    private HttpHeader lastFinishedRequest;
    private FilterChainContext heldRequest;
    private HttpRequestPacket finishedRequest;
    private HttpRequestPacket finishedUpstreamRequest;

    static ClientConnection of(Connection<?> connection) {
        ClientConnection state = ATTR.get(connection);
        if (state == null) {
            state = new ClientConnection(connection);
            ATTR.set(connection, state);
        }
        return state;
    }

    private ClientConnection(Connection<?> connection) {
        this.connection = connection;
    }

    static ClientConnection peek(Connection<?> connection) {
        return ATTR.get(connection);
    }

    /**
     * True once the connection is closed or closing after Kodiak's own answer: what arrives now
     * is no request. A graceful close leaves the connection open until its last write is out,
     * which takes as long as the client takes to read it.
     */
    static boolean isClosing(Connection<?> connection) {
        ClientConnection state = ATTR.get(connection);
        return !connection.isOpen() || (state != null && state.closing);
    }

    /** Closes the connection once what was written is out; nothing read from now on is handled. */
    void closeAfterAnswer() {
        closing = true;
        connection.closeSilently();
    }

    synchronized Exchange current() {
        return current;
    }

    synchronized void begin(Exchange exchange) {
        current = exchange;
    }

    /** True when {@code request} belongs to an exchange already answered: its late body bytes are dropped. */
    synchronized boolean isFinished(HttpHeader request) {
        return request == lastFinishedRequest;
    }

    /**
     * Holds a pipelined request back while another exchange runs; false when it may proceed now.
     * The context is suspended under the lock, so the finishing exchange can only resume it after.
     */
    synchronized boolean holdIfBusy(FilterChainContext ctx) {
        if (current == null) {
            return false;
        }
        ctx.suspend();
        heldRequest = ctx;
        return true;
    }

    /**
     * Ends {@code exchange}; returns the held pipelined request to resume, if any. {@code request}
     * is the answered request whose late body pieces must be dropped, or null when its body was
     * read to the end (it is then recycled, and its identity may come back as a new request).
     */
    FilterChainContext finish(Exchange exchange, HttpHeader request) {
        FilterChainContext held;
        Buffer refusal;
        synchronized (this) {
            if (current == exchange) {
                current = null;
            }
            lastFinishedRequest = request;
            held = heldRequest;
            heldRequest = null;
            refusal = deferredRefusal;
            deferredRefusal = null;
        }
        if (refusal != null) {
            writeAndClose(refusal);
        }
        return held;
    }

    /**
     * Answers a request whose head could not be parsed (an encoded response saying Connection:
     * close), then closes the connection. With an exchange still in progress, a pipelined request
     * ahead of this one, the answer waits for it: written now, it would reach the client first
     * and be taken as the earlier request's response, and closing would cut that response off.
     */
    void refuse(Buffer answer) {
        synchronized (this) {
            if (closing) {
                // Already answered in Kodiak's name; this connection gets no second answer.
                return;
            }
            closing = true;
            if (current != null) {
                deferredRefusal = answer;
                return;
            }
        }
        writeAndClose(answer);
    }

    private void writeAndClose(Buffer answer) {
        connection.write(answer);
        closeAfterAnswer();
    }

    /**
     * Keeps a finished exchange's packets for {@link #recycleFinished()}. Grizzly's packet caches
     * are per thread and packets come from the cache of the thread that parsed or built them: the
     * client's selector thread. An exchange usually finishes on the upstream's selector thread;
     * recycled there, the packets would overflow that thread's cache while the client's thread
     * allocated new ones for every request (about 12 KB of header objects each).
     */
    void recycleLater(HttpRequestPacket request, HttpRequestPacket upstreamRequest) {
        // A pipelined exchange can finish before this connection's thread came by: the older go now.
        swapAndRecycle(request, upstreamRequest);
    }

    /** Called on the client connection's selector thread as its next message arrives. */
    void recycleFinished() {
        swapAndRecycle(null, null);
    }

    /** Keeps the given packets for later and recycles the ones kept before, outside the lock. */
    private void swapAndRecycle(HttpRequestPacket request, HttpRequestPacket upstreamRequest) {
        HttpRequestPacket olderRequest;
        HttpRequestPacket olderUpstreamRequest;
        synchronized (this) {
            olderRequest = finishedRequest;
            olderUpstreamRequest = finishedUpstreamRequest;
            finishedRequest = request;
            finishedUpstreamRequest = upstreamRequest;
        }
        recycle(olderRequest, olderUpstreamRequest);
    }

    private static void recycle(HttpRequestPacket request, HttpRequestPacket upstreamRequest) {
        if (request != null) {
            request.getResponse().recycle();
            request.recycle();
        }
        if (upstreamRequest != null) {
            upstreamRequest.recycle();
        }
    }
}
