package io.kodiak.exchange;

import io.kodiak.http.RequestHead;
import io.kodiak.http.RequestMethod;

/**
 * What an exchange keeps of the client's request once its head has been read: the head's bytes
 * belong to the read buffer, so only these few values outlive it. {@code tlsProtocol}: the client
 * connection's TLS protocol, null when it is plain HTTP.
 */
public record ForwardedRequest(RequestMethod method, String methodName, String path, String query,
                               boolean http11, boolean keepAlive, boolean expectContinue, boolean upgrade,
                               boolean chunked, String clientAddress, String tlsProtocol) {

    /** {@code upgrade}: the request asks to switch protocols and its route allows it. */
    public static ForwardedRequest of(RequestHead head, boolean upgrade, String clientAddress, String tlsProtocol) {
        return new ForwardedRequest(head.method(), head.methodName(), head.path(), head.query(), head.isHttp11(),
                head.wantsKeepAlive(), head.expectsContinue(), upgrade, head.isChunked(), clientAddress, tlsProtocol);
    }

    /** The client reached Kodiak over TLS: the request goes upstream with X-Forwarded-Proto: https. */
    boolean secure() {
        return tlsProtocol != null;
    }

    boolean isHead() {
        return method == RequestMethod.HEAD;
    }
}
