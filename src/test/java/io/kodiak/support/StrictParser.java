package io.kodiak.support;

import org.eclipse.jetty.http.HttpCompliance;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.http.HttpVersion;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ObjIntConsumer;

/**
 * The tests' reference parser: Jetty's {@link HttpParser}, fed bytes as they come, reporting each
 * complete request (with the index just after it in the bytes fed so far) until it refuses one.
 */
public final class StrictParser {
    /** One request and where it ended in the bytes given to {@link #readAll}. */
    public record Parsed(RecordingUpstream.Received request, int end) {
    }

    private final HttpParser parser;
    private final Collector collector = new Collector();
    private final ObjIntConsumer<RecordingUpstream.Received> onRequest;
    private int fed;

    /** {@code onRequest} gets each complete request and the index just after it, counted over all bytes fed. */
    public StrictParser(HttpCompliance compliance, ObjIntConsumer<RecordingUpstream.Received> onRequest) {
        this.onRequest = onRequest;
        this.parser = new HttpParser(collector, 64 * 1024, compliance);
    }

    /** Every request the parser reads in {@code bytes}, up to the first it refuses or that is incomplete. */
    public static List<Parsed> readAll(byte[] bytes, HttpCompliance compliance) {
        List<Parsed> parsed = new ArrayList<>();
        new StrictParser(compliance, (request, end) -> parsed.add(new Parsed(request, end))).feed(bytes, 0, bytes.length);
        return parsed;
    }

    /** Parses the bytes; false once the parser has refused what it was given (see {@link #refusal()}). */
    public boolean feed(byte[] bytes, int offset, int length) {
        ByteBuffer buffer = ByteBuffer.wrap(bytes, offset, length);
        int base = fed - offset;
        fed += length;
        while (collector.refusal == null) {
            int before = buffer.position();
            parser.parseNext(buffer);
            if (parser.isState(HttpParser.State.END)) {
                // The parser stops at a request's end (messageComplete returns true): this is where it ended.
                onRequest.accept(collector.completed, base + buffer.position());
                parser.reset();
            } else if (!buffer.hasRemaining() || buffer.position() == before) {
                break;
            }
        }
        return collector.refusal == null;
    }

    /** Why the parser refused, or null. */
    public String refusal() {
        return collector.refusal;
    }

    /** One request at a time from the parser's callbacks. */
    private static final class Collector implements HttpParser.RequestHandler {
        private RecordingUpstream.Received completed;
        private String method;
        private String target;
        private String version;
        private List<String[]> headers = new ArrayList<>();
        private ByteArrayOutputStream body = new ByteArrayOutputStream();
        private String refusal;

        @Override
        public void startRequest(String method, String target, HttpVersion version) {
            this.method = method;
            this.target = target;
            this.version = version.asString();
            headers = new ArrayList<>();
            body = new ByteArrayOutputStream();
        }

        @Override
        public void parsedHeader(HttpField field) {
            headers.add(new String[]{field.getName().toLowerCase(Locale.ROOT), field.getValue()});
        }

        @Override
        public boolean headerComplete() {
            return false;
        }

        @Override
        public boolean content(ByteBuffer item) {
            byte[] bytes = new byte[item.remaining()];
            item.get(bytes);
            body.writeBytes(bytes);
            return false;
        }

        @Override
        public boolean contentComplete() {
            return false;
        }

        /** Stops the parser at the request's end. */
        @Override
        public boolean messageComplete() {
            completed = new RecordingUpstream.Received(method, target, version, headers, body.toString(StandardCharsets.ISO_8859_1));
            return true;
        }

        @Override
        public void earlyEOF() {
        }

        @Override
        public void badMessage(HttpException failure) {
            refusal = failure.getReason() == null ? "refused" : failure.getReason();
        }
    }
}
