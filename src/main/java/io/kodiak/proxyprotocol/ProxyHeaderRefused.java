package io.kodiak.proxyprotocol;

/** A connection's opening bytes that are no acceptable PROXY protocol header; the connection closes unanswered. */
public final class ProxyHeaderRefused extends Exception {
    /** Why, as counted in {@code kodiak_proxy_protocol_refused_total{reason}}. */
    public enum Reason {
        /** Neither the v1 "PROXY " nor the v2 signature: a client that speaks to the port directly. */
        MISSING("missing"),
        /** The signature, then bytes the protocol does not allow. */
        MALFORMED("malformed"),
        /** Longer than a v1 line (107 bytes) or than {@link ProxyHeaderParser#MAX_V2_BODY} after a v2 header. */
        OVERSIZED("oversized"),
        /** Well formed, but not TCP: a datagram connection cannot be what reached a TCP listener. */
        UNSUPPORTED("unsupported"),
        /** From a peer outside the listener's proxy-protocol-trusted: closed at its accept, nothing read. */
        UNTRUSTED("untrusted");

        public final String label;

        Reason(String label) {
            this.label = label;
        }
    }

    private final Reason reason;

    ProxyHeaderRefused(Reason reason, String message) {
        super(message, null, false, false);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
