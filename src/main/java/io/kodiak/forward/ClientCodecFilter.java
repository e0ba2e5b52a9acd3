package io.kodiak.forward;

import io.kodiak.http.FieldSyntax;
import io.kodiak.http.Framing;
import io.kodiak.http.HeadScanner;
import io.kodiak.http.HttpViolationException;
import io.kodiak.http.RequestChecks;
import io.kodiak.http.ScannedHeads;
import io.kodiak.http.StrictChunkedEncoding;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;
import org.glassfish.grizzly.http.HttpCodecFilter;
import org.glassfish.grizzly.http.HttpHeader;
import org.glassfish.grizzly.http.HttpPacketParsing;
import org.glassfish.grizzly.http.HttpRequestPacket;
import org.glassfish.grizzly.http.HttpResponsePacket;
import org.glassfish.grizzly.http.HttpServerFilter;
import org.glassfish.grizzly.http.KeepAlive;
import org.glassfish.grizzly.http.Method;
import org.glassfish.grizzly.http.Protocol;
import org.glassfish.grizzly.http.util.MimeHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;

/**
 * Grizzly's HTTP/1.1 server codec, made strict and given Kodiak's error answers:
 * <ul>
 * <li>every byte of a request head passes {@link HeadScanner} before Grizzly's lenient parser
 *     sees it, and chunked bodies are decoded by {@link StrictChunkedEncoding};</li>
 * <li>the request line, the Host field and the framing fields are checked once parsed
 *     ({@link RequestChecks}, {@link Framing});</li>
 * <li>a request whose head cannot be accepted gets a precise status (400, 414, 431, 505) and a
 *     one-line reason instead of an empty 400, and its connection is closed;</li>
 * <li>a broken body is left to the exchange, the one place that knows whether a response has
 *     already started.</li>
 * </ul>
 */
public final class ClientCodecFilter extends HttpServerFilter {
    /** Beyond this much unread request body, closing the connection is cheaper than draining it. */
    private static final long MAX_BODY_REMAINDER_TO_SKIP = 1024 * 1024;
    private static final Logger LOG = LoggerFactory.getLogger(ClientCodecFilter.class);

    private final ProxyFilter proxyFilter;

    /**
     * {@code keepAlive} null turns persistent client connections off; {@code proxyFilter}, the
     * chain's last filter, counts and logs the requests refused here as it does its own.
     */
    @SuppressWarnings("deprecation")
    public ClientCodecFilter(int maxHeaderSize, KeepAlive keepAlive, ProxyFilter proxyFilter) {
        super(true, maxHeaderSize, null, keepAlive, null,
                MimeHeaders.MAX_NUM_HEADERS_DEFAULT, MimeHeaders.MAX_NUM_HEADERS_UNBOUNDED);
        this.proxyFilter = proxyFilter;
        StrictChunkedEncoding.install(this, maxHeaderSize);
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

    /**
     * Bytes read after a request that was refused (its connection closing once the answer is out,
     * which takes as long as the client takes to read it) are not parsed as further requests:
     * nothing after a refusal is answered, forwarded or counted.
     */
    @Override
    public NextAction handleRead(FilterChainContext ctx) throws IOException {
        if (ClientConnection.isClosing(ctx.getConnection())) {
            return ctx.getStopAction();
        }
        return super.handleRead(ctx);
    }

    /** The strict scan of what arrived comes first; Grizzly parses only bytes it accepted. */
    @Override
    protected boolean decodeHttpPacket(FilterChainContext ctx, HttpPacketParsing message, Buffer input) {
        return ScannedHeads.parse(ctx, message, input, HeadScanner.Start.REQUEST_LINE, super::decodeHttpPacket);
    }

    @Override
    protected void onInitialLineParsed(HttpHeader header, FilterChainContext ctx) {
        RequestChecks.checkRequestLine((HttpRequestPacket) header);
    }

    /** Host, the framing fields ({@link Framing}), and "close" anywhere in a Connection list. */
    @Override
    protected boolean onHttpHeaderParsed(HttpHeader header, Buffer buffer, FilterChainContext ctx) {
        HttpRequestPacket request = (HttpRequestPacket) header;
        RequestChecks.checkHostFields(request);
        Framing.check(request);
        if (super.onHttpHeaderParsed(header, buffer, ctx)) {
            return true;
        }
        if (FieldSyntax.hasCloseOption(header.getHeaders())) {
            header.getProcessingState().setKeepAlive(false);
        }
        return false;
    }

    @Override
    protected void onHttpHeaderError(HttpHeader header, FilterChainContext ctx, Throwable error) {
        HttpRequestPacket request = (HttpRequestPacket) header;
        // Grizzly keeps this request as the connection's request in process: marked broken, it
        // takes no further bytes while its answer waits behind an exchange still running.
        header.setContentBroken(true);
        HttpResponsePacket response = request.getResponse();
        ProxyError answer = classify(error, request, ctx.getMessage());
        String detail = error instanceof HttpViolationException violation ? violation.violation().text() : null;
        // The request's own version may be one Grizzly cannot parse or write (HTTP/3.0), and the
        // encoder consults it: the request is refused and the answer is HTTP/1.1 either way.
        request.setProtocol(Protocol.HTTP_1_1);
        response.setProtocol(Protocol.HTTP_1_1);
        proxyFilter.recordRefusal(request, null, answer);
        if (request.getMethodDC().isNull()) {
            // Refused before its method was parsed; the encoder asks for one (only HEAD would change the answer).
            request.setMethod(Method.GET);
        }
        if (LOG.isDebugEnabled()) {
            LOG.debug("refused a request from {}: {} {}{}", request.getRemoteAddress(), answer.status, answer.text,
                    detail == null ? "" : ": " + detail);
        }
        ClientConnection.of(ctx.getConnection()).refuse(encodeHttpPacket(ctx, LocalResponse.of(response, answer, detail)));
    }

    @Override
    protected void onHttpContentError(HttpHeader header, FilterChainContext ctx, Throwable error) {
        header.setContentBroken(true);
    }

    /**
     * The answer to a head that could not be parsed, decided by what failed, never by an
     * exception's text: a named violation, too many fields, an unparsable Content-Length, or a
     * head that outgrew max-header-size (Grizzly's parsing state tells whether it was still in
     * the request line, 414, or in the fields, 431).
     */
    static ProxyError classify(Throwable error, HttpRequestPacket request, Object input) {
        if (error instanceof HttpViolationException violation) {
            return ProxyError.of(violation.violation());
        }
        if (error instanceof MimeHeaders.MaxHeaderCountExceededException) {
            return ProxyError.HEADERS_TOO_LARGE;
        }
        if (error instanceof NumberFormatException) {
            return ProxyError.BAD_CONTENT_LENGTH;
        }
        HttpCodecFilter.HeaderParsingState parsing = ((HttpPacketParsing) request).getHeaderParsingState();
        if (input instanceof Buffer buffer && buffer.limit() >= parsing.packetLimit) {
            return parsing.state == 0 ? ProxyError.URI_TOO_LONG : ProxyError.HEADERS_TOO_LARGE;
        }
        return ProxyError.BAD_REQUEST;
    }
}
