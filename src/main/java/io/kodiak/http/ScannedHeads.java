package io.kodiak.http;

import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.Grizzly;
import org.glassfish.grizzly.attributes.Attribute;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.http.HttpPacketParsing;

/**
 * Grizzly's head parsing with {@link HeadScanner} in front of it, for both codecs' {@code
 * decodeHttpPacket}: every byte is scanned before Grizzly's parser reads it, and Grizzly must end
 * the head where the scanner did.
 */
public final class ScannedHeads {
    /** One scanner per connection: a connection parses one head at a time, and is either a client's or an upstream's. */
    private static final Attribute<HeadScanner> SCANNER =
            Grizzly.DEFAULT_ATTRIBUTE_BUILDER.createAttribute(ScannedHeads.class.getName());

    /** The codec's own parse of the head (its superclass's {@code decodeHttpPacket}). */
    @FunctionalInterface
    public interface Parser {
        boolean parse(FilterChainContext ctx, HttpPacketParsing message, Buffer input);
    }

    private ScannedHeads() {
    }

    /**
     * Scans what arrived, then lets {@code parser} parse it; true when the head is complete.
     * Grizzly's client parser, reading a 100 Continue from a buffer without an array (a head
     * that spans reads), drops the 100's bytes from the front of the buffer and stops even when
     * the final response is there already: the scan's place moves back with the bytes, and
     * parsing goes on with what is left.
     */
    public static boolean parse(FilterChainContext ctx, HttpPacketParsing message, Buffer input,
                                HeadScanner.Start start, Parser parser) {
        HeadScanner scanner = scannerOf(ctx.getConnection(), start);
        while (true) {
            int maxHeadEnd = message.getHeaderParsingState().packetLimit;
            scanner.scanArrived(input, maxHeadEnd);
            int limit = input.limit();
            if (parser.parse(ctx, message, input)) {
                scanner.confirmEnd(input.position(), maxHeadEnd);
                return true;
            }
            int dropped = limit - input.limit();
            if (dropped > 0) {
                scanner.shift(dropped);
            }
            if (dropped <= 0 || !input.hasRemaining()) {
                return false;
            }
        }
    }

    private static HeadScanner scannerOf(Connection<?> connection, HeadScanner.Start start) {
        HeadScanner scanner = SCANNER.get(connection);
        if (scanner == null) {
            scanner = new HeadScanner(start);
            SCANNER.set(connection, scanner);
        }
        return scanner;
    }
}
