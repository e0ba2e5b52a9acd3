package io.kodiak.upstream;

import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.http.HttpCodecFilter;
import org.glassfish.grizzly.http.HttpContent;
import org.glassfish.grizzly.http.HttpHeader;
import org.glassfish.grizzly.http.ParsingResult;
import org.glassfish.grizzly.http.TransferEncoding;

/**
 * A response body decoder that keeps its connection out of the pool when bytes follow the end of
 * the response in the same read. Kodiak sends one request at a time on an upstream connection, so
 * such bytes answer nothing: pooled, the connection would hand them (a head still incomplete, say)
 * to the next exchange as the start of its response, another client's. nginx likewise drops a
 * connection whose upstream "sent more data than specified".
 */
final class NothingAfterResponse implements TransferEncoding {
    private final TransferEncoding decoder;

    private NothingAfterResponse(TransferEncoding decoder) {
        this.decoder = decoder;
    }

    /** Wraps every body decoder {@code codec} has registered. */
    static void install(HttpCodecFilter codec) {
        for (TransferEncoding encoding : codec.getTransferEncodings()) {
            codec.removeTransferEncoding(encoding);
            codec.addTransferEncoding(new NothingAfterResponse(encoding));
        }
    }

    /** Whether {@code remainder}, read after a complete message, forbids reusing the connection. */
    static void checkRemainder(HttpHeader response, Buffer remainder) {
        if (remainder != null && remainder.hasRemaining()) {
            response.getProcessingState().setKeepAlive(false);
        }
    }

    @Override
    public ParsingResult parsePacket(FilterChainContext ctx, HttpHeader header, Buffer buffer) {
        ParsingResult result = decoder.parsePacket(ctx, header, buffer);
        HttpContent content = result.getHttpContent();
        if (content != null && content.isLast()) {
            checkRemainder(header, result.getRemainderBuffer());
        }
        return result;
    }

    @Override
    public boolean wantDecode(HttpHeader header) {
        return decoder.wantDecode(header);
    }

    @Override
    public boolean wantEncode(HttpHeader header) {
        return decoder.wantEncode(header);
    }

    @Override
    public void prepareSerialize(FilterChainContext ctx, HttpHeader header, HttpContent content) {
        decoder.prepareSerialize(ctx, header, content);
    }

    @Override
    public Buffer serializePacket(FilterChainContext ctx, HttpContent content) {
        return decoder.serializePacket(ctx, content);
    }
}
