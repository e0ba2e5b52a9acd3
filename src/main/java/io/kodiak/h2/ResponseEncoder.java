package io.kodiak.h2;

import io.kodiak.http.FieldName;
import io.kodiak.http.HeadLayout;
import io.kodiak.http.ResponseHead;
import io.kodiak.routing.HeaderRules;
import io.kodiak.routing.HeaderVariable;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.http2.hpack.HpackEncoder;
import org.eclipse.jetty.http2.hpack.HpackException;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Response heads as HPACK header blocks, with one connection's encoder (its dynamic table is the
 * connection's, so blocks are encoded in the order they are written). An upstream's HTTP/1.1 head
 * loses what HTTP/2 has no place for (RFC 9113 §8.2.2: the connection-specific fields, those its
 * Connection field names, Transfer-Encoding; the reason phrase), and gets the route's
 * response-headers rules as HTTP/1.1 clients do.
 */
final class ResponseEncoder {
    private final HpackEncoder encoder = new HpackEncoder();

    /** The peer's SETTINGS_HEADER_TABLE_SIZE: our dynamic table stays within it. */
    void tableSize(int peerMax) {
        encoder.setMaxTableCapacity(peerMax);
        encoder.setTableCapacity(Math.min(peerMax, 4096));
    }

    /** A relayed response head (final or interim), the route's {@code rules} applied to a final one. */
    ByteBuffer head(ResponseHead head, HeaderRules rules, HeaderVariable.Values values) {
        byte[] in = head.array();
        HeadLayout layout = head.layout();
        boolean ruled = !rules.isEmpty();
        HttpFields.Mutable fields = HttpFields.build(head.fieldCount() + 2);
        for (int i = 0; i < head.fieldCount(); i++) {
            FieldName name = head.name(i);
            if (name.isHopByHop() || name == FieldName.CONTENT_LENGTH || name == FieldName.UPGRADE
                    || head.namedByConnection(i)
                    || ruled && rules.drops(name, in, layout.nameStart(i), layout.colon(i))) {
                continue;
            }
            String fieldName = new String(in, layout.nameStart(i), layout.colon(i) - layout.nameStart(i),
                    StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
            String value = new String(in, head.valueStart(i), head.valueEnd(i) - head.valueStart(i),
                    StandardCharsets.ISO_8859_1);
            fields.add(fieldName, value);
        }
        if (ruled) {
            rules.forEachAppended(values, (name, value) -> fields.add(name.toLowerCase(Locale.ROOT), value));
        }
        if (head.contentLength() >= 0 && !head.isChunked() && head.status() >= 200 && head.status() != 204) {
            fields.add("content-length", Long.toString(head.contentLength()));
        }
        return encode(head.status(), fields);
    }

    /** A trailer block: the fields alone, no pseudo-header (RFC 9113 §8.1). */
    ByteBuffer trailers(io.kodiak.http.Trailers trailers) {
        HttpFields.Mutable fields = HttpFields.build(4);
        trailers.forEach(fields::add);
        int worst = 64;
        for (var field : fields) {
            worst += 4 * (field.getName().length() + field.getValue().length()) + 16;
        }
        ByteBuffer block = ByteBuffer.allocate(worst);
        try {
            encoder.encode(block, new MetaData(HttpVersion.HTTP_2, fields));
        } catch (HpackException | RuntimeException e) {
            return null;
        }
        block.flip();
        return block;
    }

    /** Kodiak's own head: a status and the fields given as name, value, name, value... */
    ByteBuffer status(int status, String... nameValues) {
        HttpFields.Mutable fields = HttpFields.build(nameValues.length / 2);
        for (int i = 0; i < nameValues.length; i += 2) {
            fields.add(nameValues[i], nameValues[i + 1]);
        }
        return encode(status, fields);
    }

    /**
     * Room for the worst case, as the encoder may fail midway with the dynamic table already
     * changed: Huffman codes take up to 30 bits a byte (4 bytes a char here, every value being
     * ISO-8859-1), and each field's representation and two length prefixes at most 16 more. Null
     * when encoding failed all the same: the table is lost, and the connection with it.
     */
    private ByteBuffer encode(int status, HttpFields fields) {
        int worst = 64;
        for (var field : fields) {
            worst += 4 * (field.getName().length() + (field.getValue() == null ? 0 : field.getValue().length())) + 16;
        }
        ByteBuffer block = ByteBuffer.allocate(worst);
        try {
            encoder.encode(block, new MetaData.Response(status, null, HttpVersion.HTTP_2, fields));
        } catch (HpackException | RuntimeException e) {
            return null;
        }
        block.flip();
        return block;
    }
}
