package io.kodiak.http;

import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.Grizzly;
import org.glassfish.grizzly.attributes.Attribute;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.http.ChunkedTransferEncoding;
import org.glassfish.grizzly.http.HttpCodecFilter;
import org.glassfish.grizzly.http.HttpContent;
import org.glassfish.grizzly.http.HttpHeader;
import org.glassfish.grizzly.http.HttpPacketParsing;
import org.glassfish.grizzly.http.ParsingResult;
import org.glassfish.grizzly.http.TransferEncoding;

/**
 * The chunked transfer coding for Grizzly's codec filters, decoding with Kodiak's
 * {@link ChunkedDecoder} in place of Grizzly's lenient parser (which skipped whatever followed a
 * chunk's declared size up to the next LF, refused extensions, and accepted LF alone). Encoding
 * stays Grizzly's: it writes well-formed chunks of what it is given.
 */
public final class StrictChunkedEncoding implements TransferEncoding {
    /** One decoder per connection: a connection parses one body at a time. */
    private static final Attribute<ChunkedDecoder> DECODER =
            Grizzly.DEFAULT_ATTRIBUTE_BUILDER.createAttribute(StrictChunkedEncoding.class.getName() + ".decoder");

    private final ChunkedTransferEncoding encoder;
    private final int maxTrailerSize;

    private StrictChunkedEncoding(int maxHeadersSize) {
        this.encoder = new ChunkedTransferEncoding(maxHeadersSize);
        this.maxTrailerSize = maxHeadersSize;
    }

    /** Replaces the chunked coding a codec filter registered for itself with this one. */
    public static void install(HttpCodecFilter codec, int maxHeadersSize) {
        for (TransferEncoding encoding : codec.getTransferEncodings()) {
            if (encoding instanceof ChunkedTransferEncoding) {
                codec.removeTransferEncoding(encoding);
            }
        }
        codec.addTransferEncoding(new StrictChunkedEncoding(maxHeadersSize));
    }

    @Override
    public boolean wantDecode(HttpHeader header) {
        return header.isChunked();
    }

    @Override
    public boolean wantEncode(HttpHeader header) {
        return header.isChunked();
    }

    @Override
    public void prepareSerialize(FilterChainContext ctx, HttpHeader header, HttpContent content) {
        encoder.prepareSerialize(ctx, header, content);
    }

    @Override
    public Buffer serializePacket(FilterChainContext ctx, HttpContent content) {
        return encoder.serializePacket(ctx, content);
    }

    /**
     * One step through the body: a piece of chunk data (a slice of {@code buffer}) with whatever
     * follows it as the remainder, the end of the body, or nothing yet.
     */
    @Override
    public ParsingResult parsePacket(FilterChainContext ctx, HttpHeader header, Buffer buffer) {
        ChunkedDecoder decoder = decoderFor(ctx.getConnection(), (HttpPacketParsing) header);
        int data = decoder.next(buffer);
        if (data > 0) {
            int start = buffer.position();
            int end = start + data;
            Buffer remainder = null;
            if (end < buffer.limit()) {
                remainder = buffer.split(end);
                buffer.position(start);
            }
            buffer.shrink();
            return ParsingResult.create(header.httpContentBuilder().content(buffer).build(), remainder);
        }
        if (data == ChunkedDecoder.END) {
            Buffer remainder = buffer.hasRemaining() ? buffer.split(buffer.position()) : null;
            buffer.tryDispose();
            // Trailer fields were checked and are dropped (Kodiak forwards none).
            return ParsingResult.create(header.httpTrailerBuilder().build(), remainder);
        }
        buffer.tryDispose();
        return ParsingResult.create(null, null);
    }

    /**
     * The connection's decoder, reset at the first call for each message. Grizzly's per-message
     * chunk bookkeeping ({@code chunkLength}) is otherwise unused once its chunked decoder is
     * replaced; it starts at -1 for every message, which marks a body not begun yet.
     */
    private ChunkedDecoder decoderFor(Connection<?> connection, HttpPacketParsing message) {
        ChunkedDecoder decoder = DECODER.get(connection);
        if (decoder == null) {
            decoder = new ChunkedDecoder(maxTrailerSize);
            DECODER.set(connection, decoder);
        }
        HttpCodecFilter.ContentParsingState parsing = message.getContentParsingState();
        if (parsing.chunkLength == -1) {
            parsing.chunkLength = 0;
            decoder.reset();
        }
        return decoder;
    }
}
