package io.kodiak.http;

import org.glassfish.grizzly.http.HttpCodecFilter;
import org.glassfish.grizzly.http.HttpHeader;
import org.glassfish.grizzly.http.HttpPacketParsing;
import org.glassfish.grizzly.http.Protocol;
import org.glassfish.grizzly.http.util.DataChunk;
import org.glassfish.grizzly.http.util.MimeHeaders;

/** How a message's body is delimited: the rules both codecs apply to the framing fields of a parsed head. */
public final class Framing {
    private Framing() {
    }

    /**
     * The framing fields of a parsed head, before the codec decides from them whether a body
     * follows: Content-Length values that differ (RFC 9110 §8.6), and the transfer coding below.
     * RFC 9112 §6.1 and §6.3: the only transfer coding Kodiak decodes is chunked, as the one coding
     * of one Transfer-Encoding field of an HTTP/1.1 message (any other coding would leave the body
     * delimited by the close and still encoded; HTTP/1.0 has no transfer codings), and
     * Content-Length beside it is a smuggling vector. {@code contentLengthCounted}: Grizzly's
     * parsing state counted a Content-Length field, which it then drops from the fields when a
     * chunked Transfer-Encoding follows it. Called before the codec decides from the head whether
     * a body follows.
     */
    public static void check(HttpHeader message) {
        HttpCodecFilter.HeaderParsingState parsing = ((HttpPacketParsing) message).getHeaderParsingState();
        if (parsing.contentLengthsDiffer) {
            throw new HttpViolationException(Violation.CONFLICTING_CONTENT_LENGTHS);
        }
        checkTransferEncoding(message, parsing.contentLengthHeadersCount > 0);
    }

    private static void checkTransferEncoding(HttpHeader message, boolean contentLengthCounted) {
        MimeHeaders headers = message.getHeaders();
        int fields = 0;
        boolean chunked = false;
        boolean contentLength = contentLengthCounted;
        for (int i = 0; i < headers.size(); i++) {
            DataChunk name = headers.getName(i);
            if (name.getLength() == 17 && name.equalsIgnoreCase("transfer-encoding")) {
                fields++;
                chunked = isChunked(headers.getValue(i));
            } else if (name.getLength() == 14 && name.equalsIgnoreCase("content-length")) {
                contentLength = true;
            }
        }
        if (fields == 0) {
            return;
        }
        if (fields > 1 || !chunked || message.getProtocol() != Protocol.HTTP_1_1) {
            throw new HttpViolationException(Violation.TRANSFER_CODING_UNSUPPORTED);
        }
        if (contentLength) {
            throw new HttpViolationException(Violation.CONTENT_LENGTH_WITH_TRANSFER_ENCODING);
        }
        // One source of truth: Grizzly matches "chunked" case-sensitively when a head spans
        // reads, and case-insensitively otherwise. What is accepted here is chunked either way.
        message.setChunked(true);
    }

    /** "chunked", in any case, with optional whitespace around it (a trailing HTAB stays in Grizzly's value). */
    private static boolean isChunked(DataChunk value) {
        return value.equalsIgnoreCase("chunked") || value.toString().trim().equalsIgnoreCase("chunked");
    }
}
