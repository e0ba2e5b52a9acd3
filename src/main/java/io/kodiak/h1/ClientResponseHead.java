package io.kodiak.h1;

import io.kodiak.http.FieldName;
import io.kodiak.http.HeadLayout;
import io.kodiak.http.HeadWriter;
import io.kodiak.http.ResponseHead;
import io.kodiak.routing.HeaderRules;
import io.kodiak.routing.HeaderVariable;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.MemoryManager;

import static java.nio.charset.StandardCharsets.US_ASCII;

/**
 * The head a response leaves for the client with: the upstream's status line (its reason phrase
 * as sent) as HTTP/1.1, its end-to-end field lines as bytes, and the framing and connection
 * fields for this client, after the route's response-headers rules (interim responses pass
 * without them).
 */
final class ClientResponseHead {
    private static final byte[] HTTP_11 = "HTTP/1.1 ".getBytes(US_ASCII);
    private static final byte[] SP = {' '};
    private static final byte[] CONTENT_LENGTH = "Content-Length".getBytes(US_ASCII);
    private static final byte[] CHUNKED = "Transfer-Encoding: chunked\r\n".getBytes(US_ASCII);
    private static final byte[] CLOSE = "Connection: close\r\n".getBytes(US_ASCII);
    private static final byte[] KEEP_ALIVE = "Connection: keep-alive\r\n".getBytes(US_ASCII);
    private static final byte[] UPGRADE = "Connection: upgrade\r\n".getBytes(US_ASCII);

    /** What the Connection field says to the client. */
    enum Persistence { NOTHING, CLOSE, KEEP_ALIVE, UPGRADE }

    private ClientResponseHead() {
    }

    /**
     * {@code rules}: the route's response-headers rules, their variables from {@code values};
     * {@code rest}: what follows the head in the same write (its first body bytes), or null.
     */
    static Buffer build(ResponseHead head, ClientFraming framing, Persistence persistence, HeaderRules rules,
                        HeaderVariable.Values values, MemoryManager memory, Buffer rest) {
        byte[] in = head.array();
        HeadLayout layout = head.layout();
        boolean ruled = !rules.isEmpty();
        HeadWriter out = HeadWriter.start(layout.end() - layout.start() + 64);
        out.bytes(HTTP_11).decimal(head.status()).bytes(SP).bytes(in, head.reasonStart(), head.reasonEnd()).crlf();
        for (int i = 0; i < head.fieldCount(); i++) {
            FieldName name = head.name(i);
            boolean keep = name == FieldName.UPGRADE ? persistence == Persistence.UPGRADE
                    : !name.isHopByHop() && name != FieldName.CONTENT_LENGTH && !head.namedByConnection(i)
                    && !(ruled && rules.drops(name, in, layout.nameStart(i), layout.colon(i)));
            if (keep) {
                out.fieldLine(head, i);
            }
        }
        if (ruled) {
            rules.appendTo(out, values);
        }
        if (framing == ClientFraming.CHUNKED) {
            out.bytes(CHUNKED);
        } else if (head.contentLength() >= 0 && !head.isChunked() && head.status() >= 200 && head.status() != 204) {
            // RFC 9110 §8.6: never on a 1xx or 204.
            out.name(CONTENT_LENGTH).decimal(head.contentLength()).crlf();
        }
        switch (persistence) {
            case CLOSE -> out.bytes(CLOSE);
            case KEEP_ALIVE -> out.bytes(KEEP_ALIVE);
            case UPGRADE -> out.bytes(UPGRADE);
            default -> {
            }
        }
        return out.crlf().toBuffer(memory, rest);
    }

    /** An interim response (102, 103) as the client gets it: status line and end-to-end fields. */
    static Buffer interim(ResponseHead head, MemoryManager memory) {
        return build(head, ClientFraming.AS_RECEIVED, Persistence.NOTHING, HeaderRules.NONE, null, memory, null);
    }
}
