package io.kodiak.h2;

import io.kodiak.exchange.Admission;
import io.kodiak.exchange.Exchange;
import io.kodiak.exchange.ProxyError;
import io.kodiak.h1.LocalAnswer;
import io.kodiak.http.HttpViolationException;
import io.kodiak.http.RequestHead;
import io.kodiak.http.RequestMethod;
import io.kodiak.http.Violation;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.http2.hpack.HpackDecoder;
import org.glassfish.grizzly.memory.Buffers;

/**
 * Whole header blocks into streams: a block on a new stream opens it (within
 * max-concurrent-streams) and starts its request as an exchange, through the same admission as
 * HTTP/1.1; a block on an open stream is its trailers, which end the request.
 */
final class Requests {
    private final Http2Connection owner;
    private final StreamTable streams;
    private final HeaderBlock block;
    private final HpackDecoder decoder;
    private final RequestTranslator translator;
    private final Admission admission;
    private final Http2Settings settings;

    Requests(Http2Connection owner, StreamTable streams, HeaderBlock block, HpackDecoder decoder,
             RequestTranslator translator, Admission admission, Http2Settings settings) {
        this.owner = owner;
        this.streams = streams;
        this.block = block;
        this.decoder = decoder;
        this.translator = translator;
        this.admission = admission;
        this.settings = settings;
    }

    /** The block is whole (END_HEADERS). */
    void blockEnded() throws Http2Exception {
        int streamId = block.streamId();
        boolean endStream = block.endsStream();
        if ((streamId & 1) == 0) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "a client stream with an even id");
        }
        // Opened (if only to be reset): a lower id may never come after it.
        boolean opens = streams.opens(streamId);
        MetaData fields = block.decode(decoder);
        if (!opens) {
            trailers(streamId, endStream, fields);
            return;
        }
        if (owner.goingAway()) {
            // RFC 9113 §6.8: streams opened after our GOAWAY are not served.
            return;
        }
        if (admission.draining()) {
            // The proxy stops: this stream is the last one (its answer is a 503), and the
            // connection closes once the streams open end.
            owner.goAway(ErrorCode.NO_ERROR, "the proxy is stopping");
        }
        if (streams.size() >= settings.maxConcurrentStreams()) {
            throw Http2Exception.stream(streamId, ErrorCode.REFUSED_STREAM, "over max-concurrent-streams");
        }
        if (!(fields instanceof MetaData.Request request) || fields instanceof MetaData.ConnectRequest) {
            throw Http2Exception.stream(streamId, ErrorCode.PROTOCOL_ERROR,
                    fields instanceof MetaData.ConnectRequest ? "CONNECT is not supported" : "not a request head");
        }
        Http2Stream stream = owner.newStream(streamId);
        streams.add(stream);
        if (endStream) {
            stream.remoteEnded();
        }
        start(stream, request, endStream);
    }

    /** A header block on a stream already open: the request's trailers, which end it. */
    private void trailers(int streamId, boolean endStream, MetaData fields) throws Http2Exception {
        Http2Stream stream = streams.get(streamId);
        if (stream == null && !streams.recentlyClosed(streamId)) {
            // RFC 9113 §5.1.1: a new stream's id must be above every id used before.
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "a stream id lower than one used before");
        }
        if (stream == null || !stream.state().receives()) {
            throw Http2Exception.stream(streamId, ErrorCode.STREAM_CLOSED, "HEADERS on a closed stream");
        }
        if (!endStream || fields instanceof MetaData.Request || fields instanceof MetaData.Response) {
            throw Http2Exception.stream(streamId, ErrorCode.PROTOCOL_ERROR,
                    endStream ? "trailers with pseudo-headers" : "trailers without END_STREAM");
        }
        // Trailers are not relayed to an HTTP/1.1 upstream (Kodiak's HTTP/1.1 codec drops them too).
        stream.remoteEnded();
        Exchange exchange = stream.exchange();
        if (exchange != null) {
            stream.taken(0, exchange.onRequestBody(Buffers.EMPTY_BUFFER, true));
        }
        streams.retireIfDone(stream);
    }

    /** The request as an HTTP/1.1 head, admitted (or answered by Kodiak) and started as an exchange. */
    private void start(Http2Stream stream, MetaData.Request request, boolean endStream) throws Http2Exception {
        long startNanos = System.nanoTime();
        try {
            RequestHead head;
            try {
                if (RequestTranslator.listSize(request) > settings.maxHeaderListSize()) {
                    throw new HttpViolationException(Violation.HEAD_TOO_LARGE);
                }
                head = translator.translate(stream.id, request, endStream);
            } catch (HttpViolationException e) {
                ProxyError error = ProxyError.of(e.violation());
                boolean headRequest = "HEAD".equals(request.getMethod());
                stream.headRequest(headRequest);
                byte[] body = LocalAnswer.body(error, ProxyError.detailOf(e.violation()), 0);
                admission.recordRefusal(stream, null, null, error, startNanos, headRequest ? 0 : body.length);
                stream.answerLocally(error.status, body, 0);
                return;
            }
            stream.headRequest(head.method() == RequestMethod.HEAD);
            Admission.Decision decision = admission.decide(head, stream);
            ProxyError refusal = decision.refusal();
            if (refusal != null) {
                admission.recordRefusal(stream, head, decision, refusal, startNanos, Admission.answerBytes(head, decision));
                stream.answerLocally(refusal.status, LocalAnswer.body(refusal, null, decision.requestNumberFor5xx()),
                        decision.retryAfterSeconds());
                return;
            }
            Exchange exchange = admission.begin(stream, head, decision);
            stream.start(exchange, head.isChunked() ? -1 : head.contentLength());
            translator.forget();
            exchange.start();
        } finally {
            // Every path lets go of the head's bytes (the started one did before its exchange's start).
            translator.forget();
        }
    }
}
