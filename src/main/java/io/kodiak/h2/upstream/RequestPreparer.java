package io.kodiak.h2.upstream;

import io.kodiak.exchange.ForwardedRequest;
import io.kodiak.h1.UpstreamRequestHead;
import io.kodiak.http.FieldName;
import io.kodiak.http.HeadLayout;
import io.kodiak.http.HeadReader;
import io.kodiak.http.HeadScanner;
import io.kodiak.http.RequestHead;
import io.kodiak.http.Violation;
import io.kodiak.routing.Rewrites;
import io.kodiak.routing.Route;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.MemoryManager;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

/**
 * The request an h2 upstream gets, from the head an HTTP/1.1 upstream would get (one source of
 * truth for what is forwarded: rewrites, header rules, X-Forwarded-*, Host), read back and turned
 * into HTTP/2's form (RFC 9113 §8.2.2, §8.3.1): Host becomes :authority, the connection-specific
 * fields go, cookies stay one field (a proxy may leave them joined), and TE: trailers is kept when
 * the client sent it (gRPC needs it end to end).
 */
final class RequestPreparer {
    /** Heads a loop reads back, one at a time: the reader and head are the thread's. */
    private static final ThreadLocal<ReadBack> READ_BACK = ThreadLocal.withInitial(ReadBack::new);

    private static final class ReadBack {
        /** Bounded as what the head is built from: the client's head and what rules add, well within this. */
        final HeadReader reader = new HeadReader(HeadScanner.Start.REQUEST_LINE, 1 << 20, Violation.REQUEST_LINE_TOO_LONG);
        final RequestHead head = new RequestHead();
    }

    private RequestPreparer() {
    }

    static Http2Request prepare(RequestHead head, Route route, Rewrites.Target target, ForwardedRequest request,
                                MemoryManager memory) {
        boolean trailers = head.acceptsTrailers();
        Buffer prepared = UpstreamRequestHead.build(head, route, target, true, request, memory);
        // Read back from an array of its own: a reader given a buffer without one would use the
        // thread's scratch array, which may hold the client's head itself (still in use).
        byte[] copy = new byte[prepared.remaining()];
        prepared.get(copy);
        prepared.tryDispose();
        Buffer bytes = Buffers.wrap(memory, copy);
        ReadBack readBack = READ_BACK.get();
        RequestHead built = readBack.head;
        HeadReader reader = readBack.reader;
        try {
            reader.read(bytes);
            built.parse(reader);
            byte[] in = built.array();
            HeadLayout layout = built.layout();
            String method = built.methodName();
            int targetStart = layout.methodEnd() + 1;
            String path = new String(in, targetStart, layout.targetEnd() - targetStart, ISO_8859_1);
            String authority = null;
            List<String> fields = new ArrayList<>(built.fieldCount() * 2 + 2);
            for (int i = 0; i < built.fieldCount(); i++) {
                FieldName name = built.name(i);
                String value = new String(in, built.valueStart(i), built.valueEnd(i) - built.valueStart(i), ISO_8859_1);
                if (name == FieldName.HOST) {
                    authority = value;
                    continue;
                }
                if (name.isHopByHop() || name == FieldName.TRANSFER_ENCODING || name == FieldName.UPGRADE
                        || name == FieldName.CONTENT_LENGTH && head.isChunked()) {
                    continue;
                }
                fields.add(new String(in, layout.nameStart(i), layout.colon(i) - layout.nameStart(i), ISO_8859_1)
                        .toLowerCase(Locale.ROOT));
                fields.add(value);
            }
            if (trailers) {
                fields.add("te");
                fields.add("trailers");
            }
            return new Http2Request(method, path, authority, fields.toArray(new String[0]), head.hasBody());
        } finally {
            reader.clear();
            built.forgetBytes();
        }
    }
}
