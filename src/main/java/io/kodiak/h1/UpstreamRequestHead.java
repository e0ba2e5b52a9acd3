package io.kodiak.h1;

import io.kodiak.exchange.ForwardedRequest;
import io.kodiak.http.Ascii;
import io.kodiak.http.FieldName;
import io.kodiak.http.HeadLayout;
import io.kodiak.http.HeadWriter;
import io.kodiak.http.RequestHead;
import io.kodiak.routing.HeaderRules;
import io.kodiak.routing.Rewrites;
import io.kodiak.routing.Route;
import io.kodiak.tracing.ExchangeSpan;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.MemoryManager;

import static java.nio.charset.StandardCharsets.US_ASCII;

/**
 * The head sent upstream for a client's request: the request line with the route's path, the
 * client's field lines copied as bytes, less the hop-by-hop ones (RFC 9110 §7.6.1, and the names
 * Connection lists), Expect (answered here) and the fields Kodiak sets itself: Host per route,
 * X-Forwarded-For/-Proto/-Host, and the framing of the body as it will be sent; then the route's
 * request-headers rules, which may replace or remove any of these but the framing. With tracing on,
 * traceparent is Kodiak's (its span as the parent) and the client's tracestate goes on only with
 * the traceparent it belongs to; off, both are ordinary fields.
 */
public final class UpstreamRequestHead {
    private static final byte[] HTTP_11 = " HTTP/1.1\r\n".getBytes(US_ASCII);
    private static final byte[] HOST = name("Host");
    private static final byte[] X_FORWARDED_FOR = name("X-Forwarded-For");
    private static final byte[] X_FORWARDED_PROTO_HTTP = "X-Forwarded-Proto: http\r\n".getBytes(US_ASCII);
    private static final byte[] X_FORWARDED_PROTO_HTTPS = "X-Forwarded-Proto: https\r\n".getBytes(US_ASCII);
    private static final byte[] X_FORWARDED_HOST = name("X-Forwarded-Host");
    private static final byte[] CONNECTION_CLOSE = "Connection: close\r\n".getBytes(US_ASCII);
    private static final byte[] CONNECTION_UPGRADE = "Connection: upgrade\r\n".getBytes(US_ASCII);
    private static final byte[] CHUNKED = "Transfer-Encoding: chunked\r\n".getBytes(US_ASCII);
    private static final byte[] CONTENT_LENGTH = name("Content-Length");
    private static final byte[] COMMA_SP = {',', ' '};
    private static final byte[] SP = {' '};
    private static final byte[] QUESTION_MARK = {'?'};
    private static final byte[] TRACEPARENT = name("traceparent");
    private static final byte[] TRACEPARENT_NAME = name("Traceparent");
    private static final byte[] TRACESTATE = name("tracestate");

    private UpstreamRequestHead() {
    }

    private static byte[] name(String name) {
        return name.getBytes(US_ASCII);
    }

    /** The client's traceparent (Kodiak writes its own), and its tracestate when that traceparent was not continued. */
    private static boolean replacedByTrace(byte[] in, int nameStart, int colon, ExchangeSpan span) {
        return Ascii.equalsIgnoreCase(in, nameStart, colon, TRACEPARENT)
                || !span.passesTraceState() && Ascii.equalsIgnoreCase(in, nameStart, colon, TRACESTATE);
    }

    /**
     * The head for {@code request} on {@code route}, sent to {@code target}: with the
     * route's request-headers rules applied to the client's fields and Kodiak's own alike.
     */
    public static Buffer build(RequestHead head, Route route, Rewrites.Target target, boolean persistent,
                        ForwardedRequest request, MemoryManager memory) {
        boolean upgrade = request.upgrade();
        HeaderRules rules = route.requestHeaders();
        boolean ruled = !rules.isEmpty();
        byte[] in = head.array();
        HeadLayout layout = head.layout();
        HeadWriter out = HeadWriter.start(layout.end() - layout.start() + 256);
        out.ascii(head.methodName()).bytes(SP).ascii(target.path());
        if (target.query() != null) {
            out.bytes(QUESTION_MARK).ascii(target.query());
        }
        out.bytes(HTTP_11);
        boolean hostSent = false;
        boolean forwardedFor = false;
        ExchangeSpan span = request.span();
        for (int i = 0; i < head.fieldCount(); i++) {
            FieldName name = head.name(i);
            switch (name) {
                case OTHER -> {
                    if (!head.namedByConnection(i)
                            && !(ruled && rules.drops(name, in, layout.nameStart(i), layout.colon(i)))
                            && !(span != null && replacedByTrace(in, layout.nameStart(i), layout.colon(i), span))) {
                        out.fieldLine(head, i);
                    }
                }
                case HOST -> {
                    // A rule that sets Host writes the only Host line, preserve-host or not.
                    if (route.preserveHost() && !head.hasAuthority() && !(ruled && rules.drops(FieldName.HOST))) {
                        out.fieldLine(head, i);
                        hostSent = true;
                    }
                }
                case X_FORWARDED_FOR -> forwardedFor = true;
                case UPGRADE -> {
                    if (upgrade) {
                        out.fieldLine(head, i);
                    }
                }
                // hop-by-hop, framing (re-derived), Expect (answered here), X-Forwarded-Proto/Host (set below)
                default -> {
                }
            }
        }
        if (ruled && rules.drops(FieldName.HOST)) {
            // set Host: the rule's line, appended below, stands for the route's.
            hostSent = true;
        }
        if (!hostSent) {
            out.name(HOST);
            if (route.preserveHost() && head.hasAuthority()) {
                // RFC 9112 §3.2.2: the target's authority stands for Host.
                out.bytes(in, head.authorityStart(), head.authorityEnd());
            } else {
                out.ascii(route.target().authority());
            }
            out.crlf();
        }
        if (!(ruled && rules.drops(FieldName.X_FORWARDED_FOR))) {
            out.name(X_FORWARDED_FOR);
            if (forwardedFor) {
                // RFC 9110 §5.3: several lines of one name are one list, in order; each client's
                // lines go on before the address Kodiak adds (empty ones add nothing).
                for (int i = 0; i < head.fieldCount(); i++) {
                    if (head.name(i) == FieldName.X_FORWARDED_FOR && head.valueEnd(i) > head.valueStart(i)) {
                        out.bytes(in, head.valueStart(i), head.valueEnd(i)).bytes(COMMA_SP);
                    }
                }
            }
            out.ascii(request.clientAddress()).crlf();
        }
        if (!(ruled && rules.drops(FieldName.X_FORWARDED_PROTO))) {
            out.bytes(request.secure() ? X_FORWARDED_PROTO_HTTPS : X_FORWARDED_PROTO_HTTP);
        }
        if (!(ruled && rules.drops(FieldName.X_FORWARDED_HOST))) {
            if (head.hasAuthority()) {
                out.name(X_FORWARDED_HOST).bytes(in, head.authorityStart(), head.authorityEnd()).crlf();
            } else if (head.hostField() >= 0) {
                int host = head.hostField();
                out.name(X_FORWARDED_HOST).bytes(in, head.valueStart(host), head.valueEnd(host)).crlf();
            }
        }
        if (span != null && !(ruled && rules.drops(FieldName.OTHER, TRACEPARENT, 0, TRACEPARENT.length))) {
            out.name(TRACEPARENT_NAME).ascii(span.traceparent()).crlf();
        }
        if (ruled) {
            rules.appendTo(out, request);
        }
        if (upgrade) {
            out.bytes(CONNECTION_UPGRADE);
        } else if (!persistent) {
            out.bytes(CONNECTION_CLOSE);
        }
        if (head.isChunked()) {
            out.bytes(CHUNKED);
        } else if (head.contentLength() >= 0) {
            out.name(CONTENT_LENGTH).decimal(head.contentLength()).crlf();
        }
        return out.crlf().toBuffer(memory);
    }
}
