package io.kodiak.discovery;

/** A lookup gave no usable answer: NXDOMAIN, SERVFAIL, a timeout, or no records; the message says which. */
public final class LookupFailed extends Exception {
    public LookupFailed(String reason) {
        super(reason, null, false, false);
    }
}
