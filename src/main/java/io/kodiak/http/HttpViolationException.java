package io.kodiak.http;

/**
 * Thrown by Kodiak's parsing checks on hostile or broken input. It carries the {@link Violation}
 * that callers dispatch on, and no stack trace: it is an expected outcome of untrusted bytes, and
 * a client must not be able to make the proxy spend time filling stack traces.
 */
public final class HttpViolationException extends RuntimeException {
    private final Violation violation;

    public HttpViolationException(Violation violation) {
        super(violation.text());
        this.violation = violation;
    }

    public Violation violation() {
        return violation;
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
        return this;
    }
}
