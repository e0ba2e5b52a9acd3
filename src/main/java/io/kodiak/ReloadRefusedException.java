package io.kodiak;

/** A reload that cannot be applied; the configuration in service stays. The message names the key or address. */
public final class ReloadRefusedException extends Exception {
    public ReloadRefusedException(String message, Throwable cause) {
        super(message, cause);
    }

    public ReloadRefusedException(String message) {
        super(message);
    }
}
