package io.kodiak.forward;

import io.kodiak.http.FieldSyntax;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.http.HttpPacketParsing;
import org.glassfish.grizzly.http.HttpHeader;
import org.glassfish.grizzly.http.HttpRequestPacket;
import org.glassfish.grizzly.http.HttpResponsePacket;
import org.glassfish.grizzly.http.HttpServerFilter;
import org.glassfish.grizzly.http.KeepAlive;
import org.glassfish.grizzly.http.util.MimeHeaders;

/**
 * Grizzly's HTTP/1.1 server codec with Kodiak's error answers: a request whose header cannot be
 * parsed gets a precise status (400, 414, 431) and a one-line reason instead of an empty 400,
 * and a broken body is left to the exchange, the one place that knows whether a response has
 * already started.
 */
public final class ClientCodecFilter extends HttpServerFilter {
    /** Request attribute set when Content-Length and Transfer-Encoding came together (see {@link ProxyFilter}). */
    static final String BOTH_LENGTHS_ATTRIBUTE = ClientCodecFilter.class.getName() + ".bothLengths";
    /** Beyond this much unread request body, closing the connection is cheaper than draining it. */
    private static final long MAX_BODY_REMAINDER_TO_SKIP = 1024 * 1024;

    /** {@code keepAlive} null turns persistent client connections off. */
    @SuppressWarnings("deprecation")
    public ClientCodecFilter(int maxHeaderSize, KeepAlive keepAlive) {
        super(true, maxHeaderSize, null, keepAlive, null,
                MimeHeaders.MAX_NUM_HEADERS_DEFAULT, MimeHeaders.MAX_NUM_HEADERS_UNBOUNDED);
        // A proxy forwards what it is given: GET or DELETE with a body is the upstream's business.
        setAllowPayloadForUndefinedHttpMethods(true);
        // After an early answer (an upstream 401 to a large upload, say) the unread rest of the
        // body is read and dropped to keep the connection; Grizzly's default drops any amount.
        setMaxPayloadRemainderToSkip(MAX_BODY_REMAINDER_TO_SKIP);
    }

    /**
     * Kodiak does not tunnel protocol upgrades (Upgrade is hop-by-hop and stripped), so a request
     * asking for one is an ordinary request: its body stays framed and its connection stays reusable.
     */
    @Override
    protected void onIncomingUpgrade(FilterChainContext ctx, HttpHeader httpHeader) {
        httpHeader.getUpgradeDC().recycle();
    }

    /** Every field name must be a token: anything else is 400 and a close (RFC 9112 §5.1), before Grizzly reads on. */
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

    /**
     * "close" anywhere in a Connection list ends the connection after the response. Grizzly also
     * lets chunked win over a preceding Content-Length and drops that header, which would hide a
     * request-smuggling attempt; its parsing state still counts it, so note it here.
     */
    @Override
    protected boolean onHttpHeaderParsed(HttpHeader header, Buffer buffer, FilterChainContext ctx) {
        boolean error = super.onHttpHeaderParsed(header, buffer, ctx);
        if (header.isChunked() && ((HttpPacketParsing) header).getHeaderParsingState().contentLengthHeadersCount > 0) {
            ((HttpRequestPacket) header).setAttribute(BOTH_LENGTHS_ATTRIBUTE, Boolean.TRUE);
        }
        if (FieldSyntax.hasCloseOption(header.getHeaders())) {
            header.getProcessingState().setKeepAlive(false);
        }
        return error;
    }

    @Override
    protected void onHttpHeaderError(HttpHeader header, FilterChainContext ctx, Throwable error) {
        HttpResponsePacket response = ((HttpRequestPacket) header).getResponse();
        ctx.write(encodeHttpPacket(ctx, LocalResponse.of(response, classify(error))));
        response.getProcessingState().getHttpContext().close();
    }

    @Override
    protected void onHttpContentError(HttpHeader header, FilterChainContext ctx, Throwable error) {
        header.setContentBroken(true);
    }

    static ProxyError classify(Throwable error) {
        if (error instanceof MimeHeaders.MaxHeaderCountExceededException) {
            return ProxyError.HEADERS_TOO_LARGE;
        }
        String message = String.valueOf(error.getMessage());
        if (message.equals(FieldSyntax.INVALID_NAME)) {
            return ProxyError.BAD_FIELD_NAME;
        }
        if (message.contains("header is too large")) {
            return ProxyError.HEADERS_TOO_LARGE;
        }
        if (message.contains("line is too large")) {
            return ProxyError.URI_TOO_LONG;
        }
        return ProxyError.BAD_REQUEST;
    }
}
