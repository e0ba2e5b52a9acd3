package io.kodiak.discovery;

/** Asks DNS; blocking, called on the resolver's own threads only. */
public interface Lookups {
    /** The A and AAAA addresses of {@code host}. */
    Answer addresses(String host) throws LookupFailed;

    /** The SRV records of {@code name}, each target's addresses resolved. */
    Answer srv(String name) throws LookupFailed;
}
