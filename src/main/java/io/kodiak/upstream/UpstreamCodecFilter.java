package io.kodiak.upstream;

import io.kodiak.http.FieldSyntax;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.Grizzly;
import org.glassfish.grizzly.attributes.Attribute;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.http.HttpClientFilter;
import org.glassfish.grizzly.http.HttpHeader;
import org.glassfish.grizzly.http.HttpPacketParsing;
import org.glassfish.grizzly.http.HttpRequestPacket;
import org.glassfish.grizzly.http.HttpResponsePacket;
import org.glassfish.grizzly.http.util.MimeHeaders;

import java.util.Queue;

/**
 * Grizzly's HTTP/1.1 client codec with the checks a proxy needs on what it relays:
 * <ul>
 * <li>a response whose framing or field names cannot be trusted (conflicting Content-Length
 *     values, a name that is not a token, a 101 nobody asked for) is reported to the exchange,
 *     which answers 502 and closes the connection instead of reading the next response from
 *     the middle of this one;</li>
 * <li>an interim 1xx response (102, 103) is dropped and the final response that follows is
 *     parsed for the same request (Grizzly itself skips only 100);</li>
 * <li>"close" anywhere in the Connection list keeps the connection out of the pool;</li>
 * <li>an Upgrade header does not switch the message to raw pass-through: Kodiak strips Upgrade as
 *     hop-by-hop and never tunnels, so a response that merely advertises an upgrade (Apache sends
 *     "Upgrade: h2c" on ordinary 200s) keeps its framing.</li>
 * </ul>
 */
final class UpstreamCodecFilter extends HttpClientFilter {
    /**
     * The queue through which HttpClientFilter pairs each response with the request it answers
     * (its attribute name in Grizzly 2.3.35). An interim response has used up the entry that the
     * final response still needs.
     */
    private static final Attribute<Queue<HttpRequestPacket>> REQUESTS_AWAITING_RESPONSE =
            Grizzly.DEFAULT_ATTRIBUTE_BUILDER.createAttribute("HttpClientFilter.httpRequest");

    UpstreamCodecFilter(int maxHeadersSize) {
        super(maxHeadersSize);
    }

    @Override
    protected void onIncomingUpgrade(FilterChainContext ctx, HttpHeader httpHeader) {
        httpHeader.getUpgradeDC().recycle();
    }

    /** A field name that is not a token fails the response at once (see {@link FieldSyntax}). */
    @Override
    protected boolean parseHeaderName(HttpHeader header, MimeHeaders headers, HeaderParsingState state,
                                      byte[] input, int end) {
        FieldSyntax.checkName(state, input, end);
        return super.parseHeaderName(header, headers, state, input, end);
    }

    @Override
    protected boolean parseHeaderName(HttpHeader header, MimeHeaders headers, HeaderParsingState state, Buffer input) {
        FieldSyntax.checkName(state, input);
        return super.parseHeaderName(header, headers, state, input);
    }

    @Override
    protected boolean onHttpHeaderParsed(HttpHeader header, Buffer buffer, FilterChainContext ctx) {
        boolean error = super.onHttpHeaderParsed(header, buffer, ctx);
        HttpResponsePacket response = (HttpResponsePacket) header;
        if (response.getRequest() == null) {
            // Bytes on a connection with no request outstanding (an idle pooled one).
            reportInvalid(ctx.getConnection(), "a response to no request");
            return true;
        }
        String problem = problemWith(response);
        if (problem != null) {
            reportInvalid(ctx.getConnection(), problem);
            return true;
        }
        if (isInterim(response)) {
            response.setExpectContent(false);
            // Kodiak sends one request at a time per connection, so the queue is empty here and the
            // request goes back to its head, ready for the final response.
            Queue<HttpRequestPacket> awaiting = REQUESTS_AWAITING_RESPONSE.get(ctx.getConnection());
            if (awaiting == null) {
                reportInvalid(ctx.getConnection(), "an interim response Grizzly cannot pair with its request");
                return true;
            }
            awaiting.offer(response.getRequest());
        } else if (FieldSyntax.hasCloseOption(response.getHeaders())) {
            response.getProcessingState().setKeepAlive(false);
        }
        return error;
    }

    private static String problemWith(HttpResponsePacket response) {
        if (((HttpPacketParsing) response).getHeaderParsingState().contentLengthsDiffer) {
            return "conflicting Content-Length values";
        }
        if (response.getStatus() == 101) {
            return "101 Switching Protocols to a request that asked for no upgrade";
        }
        return null;
    }

    /** 1xx other than 100 (which Grizzly consumes) and 101 (refused above). */
    static boolean isInterim(HttpResponsePacket response) {
        int status = response.getStatus();
        return status > 101 && status < 200;
    }

    /**
     * The header could not be parsed, or failed a check above. Grizzly's client codec would throw
     * from here; instead the exchange hears why and closes the connection.
     */
    @Override
    protected void onHttpHeaderError(HttpHeader header, FilterChainContext ctx, Throwable error) {
        String why = error.getMessage() != null ? error.getMessage() : error.getClass().getSimpleName();
        reportInvalid(ctx.getConnection(), "malformed response header (" + why + ")");
        ctx.getConnection().closeSilently();
    }

    private static void reportInvalid(Connection<?> connection, String problem) {
        UpstreamConnection state = UpstreamConnection.peek(connection);
        ResponseListener listener = state == null ? null : state.listener();
        if (listener != null) {
            listener.onInvalidResponse(problem);
        }
    }
}
