package io.kodiak.exchange;

import io.kodiak.http.RequestHead;
import io.kodiak.http.RequestMethod;
import io.kodiak.routing.HeaderVariable;
import io.kodiak.routing.HostName;
import io.kodiak.tracing.ExchangeSpan;

/**
 * What an exchange keeps of the client's request once its head has been read: the head's bytes
 * belong to the read buffer, so only these few values outlive it. {@code tlsProtocol}: the client
 * connection's TLS protocol, null when it is plain HTTP. {@code host}: the request's host name
 * (null when it named none, or when nothing needed it); {@code requestNumber}: its request id's
 * number; {@code protocol}: how it came, as the access log names it (HTTP/1.1, HTTP/2.0); {@code loggedHeaders}: the values of the headers the access log format names (null when none);
 * {@code span}: the exchange's trace span, null when proxy.tracing is off.
 */
public record ForwardedRequest(RequestMethod method, String methodName, String path, String query,
                               String protocol, boolean keepAlive, boolean expectContinue, boolean upgrade,
                               boolean chunked, String clientAddress, String tlsProtocol, String host,
                               long requestNumber, String[] loggedHeaders, ExchangeSpan span)
        implements HeaderVariable.Values {

    /** {@code upgrade}: the request asks to switch protocols and its route allows it. */
    static ForwardedRequest of(RequestHead head, boolean upgrade, String protocol, String clientAddress,
                               String tlsProtocol, Admission.Decision decision, ExchangeSpan span) {
        return new ForwardedRequest(head.method(), head.methodName(), head.path(), head.query(), protocol,
                head.wantsKeepAlive(), head.expectsContinue(), upgrade, head.isChunked(), clientAddress, tlsProtocol,
                decision.host(), decision.requestNumber(), LoggedHeaders.of(head, decision.generation().accessLog()), span);
    }

    /** The client reached Kodiak over TLS: the request goes upstream with X-Forwarded-Proto: https. */
    public boolean secure() {
        return tlsProtocol != null;
    }

    boolean isHead() {
        return method == RequestMethod.HEAD;
    }

    /** How a client reached Kodiak: https on a TLS connection ({@code tlsProtocol} not null), else http. */
    static String scheme(String tlsProtocol) {
        return tlsProtocol == null ? "http" : "https";
    }

    /** The request's id number when it took one (the access log's), else one taken now (a 5xx answer and its WARN line name it). */
    long idNumber() {
        return requestNumber != 0 ? requestNumber : RequestIds.next();
    }

    String requestId() {
        return RequestIds.format(requestNumber);
    }

    @Override
    public String of(HeaderVariable variable) {
        return switch (variable) {
            case REQUEST_ID -> requestId();
            case CLIENT_ADDR -> clientAddress;
            case HOST -> HostName.plain(host);
            case SCHEME -> scheme(tlsProtocol);
        };
    }
}
