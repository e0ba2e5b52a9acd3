package io.kodiak.forward;

import io.kodiak.routing.Route;
import org.glassfish.grizzly.http.HttpRequestPacket;
import org.glassfish.grizzly.http.HttpResponsePacket;
import org.glassfish.grizzly.http.Method;
import org.glassfish.grizzly.http.Protocol;
import org.glassfish.grizzly.http.util.DataChunk;
import org.glassfish.grizzly.http.util.MimeHeaders;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Builds the message each side sees. Headers are copied by reference to the parsed bytes (no
 * String per header); hop-by-hop headers (RFC 9110 §7.6.1) stop here, framing headers are
 * re-derived by the codec of the outgoing side, and forwarding headers are added.
 */
final class HeaderRewriter {
    private static final byte[][] HOP_BY_HOP = lower("connection", "keep-alive", "proxy-connection", "te",
            "trailer", "transfer-encoding", "upgrade");
    /** Framing is re-derived on the outgoing side; copying these would let the two framings disagree. */
    private static final byte[] CONTENT_LENGTH = lower("content-length")[0];
    private static final byte[] HOST = lower("host")[0];
    /** Kodiak answers Expect: 100-continue itself, so the upstream never waits on it. */
    private static final byte[] EXPECT = lower("expect")[0];
    private static final byte[] X_FORWARDED_FOR = lower("x-forwarded-for")[0];
    private static final byte[] X_FORWARDED_PROTO = lower("x-forwarded-proto")[0];
    private static final byte[] X_FORWARDED_HOST = lower("x-forwarded-host")[0];

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
        String[] connectionTokens = connectionTokens(in);
        DataChunk forwardedFor = null;
        for (int i = 0; i < in.size(); i++) {
            DataChunk name = in.getName(i);
            if (isHopByHop(name, connectionTokens) || name.equalsIgnoreCase(CONTENT_LENGTH)
                    || name.equalsIgnoreCase(EXPECT) || name.equalsIgnoreCase(X_FORWARDED_PROTO)
                    || name.equalsIgnoreCase(X_FORWARDED_HOST)) {
                continue;
            }
            if (name.equalsIgnoreCase(HOST)) {
                if (route.preserveHost()) {
                    copy(out, name, in.getValue(i));
                }
                continue;
            }
            if (name.equalsIgnoreCase(X_FORWARDED_FOR)) {
                forwardedFor = in.getValue(i);
                continue;
            }
            copy(out, name, in.getValue(i));
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
        String[] connectionTokens = connectionTokens(in);
        for (int i = 0; i < in.size(); i++) {
            DataChunk name = in.getName(i);
            if (isHopByHop(name, connectionTokens) || name.equalsIgnoreCase(CONTENT_LENGTH)) {
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

    private static boolean isHopByHop(DataChunk name, String[] connectionTokens) {
        for (byte[] hop : HOP_BY_HOP) {
            if (name.equalsIgnoreCase(hop)) {
                return true;
            }
        }
        if (connectionTokens != null) {
            for (String token : connectionTokens) {
                if (name.equalsIgnoreCase(token)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Header names listed in Connection, which are hop-by-hop for this message only; null when none. */
    private static String[] connectionTokens(MimeHeaders headers) {
        String[] tokens = null;
        for (int i = 0; i < headers.size(); i++) {
            if (!headers.getName(i).equalsIgnoreCase(HOP_BY_HOP[0])) {
                continue;
            }
            String[] here = headers.getValue(i).toString().toLowerCase(Locale.ROOT).split(",");
            for (int j = 0; j < here.length; j++) {
                here[j] = here[j].trim();
            }
            if (tokens == null) {
                tokens = here;
            } else {
                String[] merged = new String[tokens.length + here.length];
                System.arraycopy(tokens, 0, merged, 0, tokens.length);
                System.arraycopy(here, 0, merged, tokens.length, here.length);
                tokens = merged;
            }
        }
        return tokens;
    }

    private static byte[][] lower(String... names) {
        byte[][] bytes = new byte[names.length][];
        for (int i = 0; i < names.length; i++) {
            bytes[i] = names[i].getBytes(StandardCharsets.US_ASCII);
        }
        return bytes;
    }
}
