package io.kodiak.upstream;

import io.kodiak.http.FieldSyntax;
import io.kodiak.http.Framing;
import io.kodiak.http.HeadScanner;
import io.kodiak.http.HttpViolationException;
import io.kodiak.http.ScannedHeads;
import io.kodiak.http.StrictChunkedEncoding;
import io.kodiak.http.Violation;
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
import org.glassfish.grizzly.http.Protocol;

import java.util.Queue;

/**
 * Grizzly's HTTP/1.1 client codec with the checks a proxy needs on what it relays:
 * <ul>
 * <li>every byte of a response head passes {@link HeadScanner} before Grizzly's lenient parser
 *     sees it (no control byte in a value, names that are tokens, no bare CR, no folding), and
 *     chunked bodies are decoded by {@link StrictChunkedEncoding};</li>
 * <li>a response whose head or framing cannot be trusted (one of the above, conflicting
 *     Content-Length values, a transfer coding other than chunked, Content-Length beside
 *     Transfer-Encoding, framing on a 204 or 205, a version other than 1.x, a 101 nobody asked
 *     for) is reported to the exchange, which answers 502 and closes the connection instead of
 *     reading the next response from the middle of this one; a chunked body that breaks its
 *     framing midway ends the same way (the client's connection is closed if the response had
 *     started);</li>
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
        StrictChunkedEncoding.install(this, maxHeadersSize);
        // Last: it wraps every body decoder registered by then, the strict chunked one included.
        NothingAfterResponse.install(this);
    }

    /** The strict scan of what arrived comes first; Grizzly parses only bytes it accepted. */
    @Override
    protected boolean decodeHttpPacket(FilterChainContext ctx, HttpPacketParsing message, Buffer input) {
        return ScannedHeads.parse(ctx, message, input, HeadScanner.Start.STATUS_LINE, super::decodeHttpPacket);
    }

    @Override
    protected void onIncomingUpgrade(FilterChainContext ctx, HttpHeader httpHeader) {
        httpHeader.getUpgradeDC().recycle();
    }

    /**
     * Checks the parsed head: each problem is a {@link Violation} thrown to {@link #onHttpHeaderError},
     * the one place that reports it to the exchange and closes the connection.
     */
    @Override
    protected boolean onHttpHeaderParsed(HttpHeader header, Buffer buffer, FilterChainContext ctx) {
        HttpResponsePacket response = (HttpResponsePacket) header;
        Framing.check(response);
        super.onHttpHeaderParsed(header, buffer, ctx);
        if (response.getRequest() == null) {
            throw new HttpViolationException(Violation.RESPONSE_TO_NO_REQUEST);
        }
        checkStatus(response);
        if (isInterim(response)) {
            response.setExpectContent(false);
            // Kodiak sends one request at a time per connection, so the queue is empty here and the
            // request goes back to its head, ready for the final response.
            Queue<HttpRequestPacket> awaiting = REQUESTS_AWAITING_RESPONSE.get(ctx.getConnection());
            if (awaiting == null) {
                throw new HttpViolationException(Violation.INTERIM_UNPAIRED);
            }
            awaiting.offer(response.getRequest());
        } else {
            if (FieldSyntax.hasCloseOption(response.getHeaders())) {
                response.getProcessingState().setKeepAlive(false);
            }
            if (!response.isExpectContent() && response.getStatus() >= 200) {
                // A response without a body ends with its head: what follows in this read answers nothing.
                NothingAfterResponse.checkRemainder(response, buffer);
            }
        }
        return false;
    }

    private static void checkStatus(HttpResponsePacket response) {
        Protocol protocol = response.getProtocol();
        if (protocol != Protocol.HTTP_1_1 && protocol != Protocol.HTTP_1_0) {
            throw new HttpViolationException(Violation.VERSION_NOT_SUPPORTED);
        }
        int status = response.getStatus();
        if (status == 101) {
            throw new HttpViolationException(Violation.UNSOLICITED_SWITCH);
        }
        if ((status == 204 || status == 205) && (response.isChunked() || response.getContentLength() > 0)) {
            // Grizzly reads no body after these; one that follows would be read as the next response.
            throw new HttpViolationException(Violation.BODY_ON_BODYLESS_STATUS);
        }
    }

    /** 1xx other than 100 (which Grizzly consumes) and 101 (refused above). */
    static boolean isInterim(HttpResponsePacket response) {
        int status = response.getStatus();
        return status > 101 && status < 200;
    }

    /**
     * The head could not be parsed, or failed a check above. Grizzly's client codec would throw
     * from here; instead the exchange hears why and closes the connection.
     */
    @Override
    protected void onHttpHeaderError(HttpHeader header, FilterChainContext ctx, Throwable error) {
        reportInvalid(ctx.getConnection(), "invalid response head (" + describe(error) + ")");
        ctx.getConnection().closeSilently();
    }

    /** A violation's own text; for Grizzly's own failures (a head too large, say), its message. */
    private static String describe(Throwable error) {
        if (error instanceof HttpViolationException violation) {
            return violation.violation().text();
        }
        return error.getMessage() != null ? error.getMessage() : error.getClass().getSimpleName();
    }

    /**
     * The body's framing broke (a chunk longer or shorter than its size, a malformed chunk line):
     * the exchange hears why before Grizzly's client codec gives up on the connection, so a
     * response not yet started gets 502 and one already started is cut off.
     */
    @Override
    protected void onHttpContentError(HttpHeader header, FilterChainContext ctx, Throwable error) throws java.io.IOException {
        reportInvalid(ctx.getConnection(), "invalid response body (" + describe(error) + ")");
        ctx.getConnection().closeSilently();
        super.onHttpContentError(header, ctx, error);
    }

    private static void reportInvalid(Connection<?> connection, String problem) {
        UpstreamConnection state = UpstreamConnection.peek(connection);
        ResponseListener listener = state == null ? null : state.listener();
        if (listener != null) {
            listener.onInvalidResponse(problem);
        }
    }
}
