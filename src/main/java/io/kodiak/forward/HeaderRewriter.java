package io.kodiak.forward;

import io.kodiak.http.FieldSyntax;
import io.kodiak.routing.Route;
import org.glassfish.grizzly.http.HttpRequestPacket;
import org.glassfish.grizzly.http.HttpResponsePacket;
import org.glassfish.grizzly.http.Method;
import org.glassfish.grizzly.http.Protocol;
import org.glassfish.grizzly.http.util.DataChunk;
import org.glassfish.grizzly.http.util.MimeHeaders;

import java.nio.charset.StandardCharsets;

/**
 * Builds the message each side sees. Headers are copied by reference to the parsed bytes (no
 * String per header); hop-by-hop headers (RFC 9110 §7.6.1) stop here, framing headers are
 * re-derived by the codec of the outgoing side, and forwarding headers are added.
 */
final class HeaderRewriter {
    /** How a header name is treated; most names are OTHER and pass through untouched. */
    private enum Kind { OTHER, HOP_BY_HOP, CONTENT_LENGTH, HOST, EXPECT, X_FORWARDED_FOR, X_FORWARDED_PROTO, X_FORWARDED_HOST }

    private static final byte[] TE = ascii("te");
    private static final byte[] HOST = ascii("host");
    private static final byte[] EXPECT = ascii("expect");
    private static final byte[] TRAILER = ascii("trailer");
    private static final byte[] UPGRADE = ascii("upgrade");
    private static final byte[] CONNECTION = ascii("connection");
    private static final byte[] KEEP_ALIVE = ascii("keep-alive");
    private static final byte[] CONTENT_LENGTH = ascii("content-length");
    private static final byte[] X_FORWARDED_FOR = ascii("x-forwarded-for");
    private static final byte[] PROXY_CONNECTION = ascii("proxy-connection");
    private static final byte[] X_FORWARDED_HOST = ascii("x-forwarded-host");
    private static final byte[] TRANSFER_ENCODING = ascii("transfer-encoding");
    private static final byte[] X_FORWARDED_PROTO = ascii("x-forwarded-proto");

    private HeaderRewriter() {
    }

    /** The request to send upstream for {@code request} on {@code route}; body framing mirrors the client's. */
    static HttpRequestPacket upstreamRequest(HttpRequestPacket request, Route route, String path,
                                             boolean persistent) {
        HttpRequestPacket.Builder builder = HttpRequestPacket.builder()
                .method(request.getMethod().getMethodString())
                .uri(path)
                .protocol(Protocol.HTTP_1_1);
        String query = request.getQueryString();
        if (query != null) {
            builder.query(query);
        }
        HttpRequestPacket upstream = builder.build();

        MimeHeaders in = request.getHeaders();
        MimeHeaders out = upstream.getHeaders();
        String[] connectionTokens = FieldSyntax.connectionOptions(in);
        DataChunk forwardedFor = null;
        for (int i = 0; i < in.size(); i++) {
            DataChunk name = in.getName(i);
            switch (classify(name)) {
                case OTHER:
                    if (!namedByConnection(name, connectionTokens)) {
                        copy(out, name, in.getValue(i));
                    }
                    break;
                case HOST:
                    if (route.preserveHost()) {
                        copy(out, name, in.getValue(i));
                    }
                    break;
                case X_FORWARDED_FOR:
                    forwardedFor = in.getValue(i);
                    break;
                default:
                    // hop-by-hop, framing (re-derived), Expect (answered here), X-Forwarded-Proto/Host (set below)
                    break;
            }
        }
        if (!route.preserveHost() || !out.contains("host")) {
            out.setValue("Host").setString(route.target().authority());
        }
        String client = request.getRemoteAddress();
        out.addValue("X-Forwarded-For").setString(forwardedFor == null || forwardedFor.isNull()
                ? client : forwardedFor + ", " + client);
        out.addValue("X-Forwarded-Proto").setString("http");
        DataChunk clientHost = in.getValue("host");
        if (clientHost != null && !clientHost.isNull()) {
            out.addValue("X-Forwarded-Host").set(clientHost);
        }
        if (!persistent) {
            out.addValue("Connection").setString("close");
        }

        if (request.isChunked()) {
            upstream.setChunked(true);
        } else if (request.getContentLength() >= 0) {
            upstream.setContentLengthLong(request.getContentLength());
        }
        // Decided from the framing headers, not isExpectContent(), which the codec clears once the
        // body is read; a request without a body must not gain framing on the way.
        upstream.setExpectContent(request.isChunked() || request.getContentLength() >= 0);
        return upstream;
    }

    /** Copies status, end-to-end headers and declared length of the upstream response onto the client's. */
    static void clientResponse(HttpResponsePacket upstream, HttpResponsePacket client, boolean closeClient) {
        client.setStatus(upstream.getStatus());
        MimeHeaders in = upstream.getHeaders();
        MimeHeaders out = client.getHeaders();
        String[] connectionTokens = FieldSyntax.connectionOptions(in);
        for (int i = 0; i < in.size(); i++) {
            DataChunk name = in.getName(i);
            Kind kind = classify(name);
            if (kind == Kind.HOP_BY_HOP || kind == Kind.CONTENT_LENGTH || namedByConnection(name, connectionTokens)) {
                continue;
            }
            copy(out, name, in.getValue(i));
        }
        if (!upstream.isChunked() && upstream.getContentLength() >= 0) {
            client.setContentLengthLong(upstream.getContentLength());
        }
        if (closeClient) {
            out.setValue("Connection").setString("close");
        }
    }

    static boolean isIdempotent(Method method) {
        return method == Method.GET || method == Method.HEAD || method == Method.OPTIONS
                || method == Method.TRACE || method == Method.PUT || method == Method.DELETE;
    }

    private static void copy(MimeHeaders out, DataChunk name, DataChunk value) {
        DataChunk target = out.addValue("");
        out.getName(out.size() - 1).set(name);
        target.set(value);
    }

    /**
     * Hop-by-hop per RFC 9110 §7.6.1 (Connection, the names it lists, Keep-Alive, Proxy-Connection,
     * TE, Trailer, Transfer-Encoding, Upgrade), or one of the names Kodiak rewrites. Dispatches on
     * the name's length first: this runs for every header of every message.
     */
    private static Kind classify(DataChunk name) {
        switch (name.getLength()) {
            case 2:
                return name.equalsIgnoreCase(TE) ? Kind.HOP_BY_HOP : Kind.OTHER;
            case 4:
                return name.equalsIgnoreCase(HOST) ? Kind.HOST : Kind.OTHER;
            case 6:
                return name.equalsIgnoreCase(EXPECT) ? Kind.EXPECT : Kind.OTHER;
            case 7:
                return name.equalsIgnoreCase(TRAILER) || name.equalsIgnoreCase(UPGRADE) ? Kind.HOP_BY_HOP : Kind.OTHER;
            case 10:
                return name.equalsIgnoreCase(CONNECTION) || name.equalsIgnoreCase(KEEP_ALIVE) ? Kind.HOP_BY_HOP : Kind.OTHER;
            case 14:
                return name.equalsIgnoreCase(CONTENT_LENGTH) ? Kind.CONTENT_LENGTH : Kind.OTHER;
            case 15:
                return name.equalsIgnoreCase(X_FORWARDED_FOR) ? Kind.X_FORWARDED_FOR : Kind.OTHER;
            case 16:
                if (name.equalsIgnoreCase(PROXY_CONNECTION)) {
                    return Kind.HOP_BY_HOP;
                }
                return name.equalsIgnoreCase(X_FORWARDED_HOST) ? Kind.X_FORWARDED_HOST : Kind.OTHER;
            case 17:
                if (name.equalsIgnoreCase(TRANSFER_ENCODING)) {
                    return Kind.HOP_BY_HOP;
                }
                return name.equalsIgnoreCase(X_FORWARDED_PROTO) ? Kind.X_FORWARDED_PROTO : Kind.OTHER;
            default:
                return Kind.OTHER;
        }
    }

    private static boolean namedByConnection(DataChunk name, String[] connectionTokens) {
        if (connectionTokens != null) {
            for (String token : connectionTokens) {
                if (name.equalsIgnoreCase(token)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static byte[] ascii(String lowerCaseName) {
        return lowerCaseName.getBytes(StandardCharsets.US_ASCII);
    }
}
