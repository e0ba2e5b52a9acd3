package io.kodiak.discovery;

/** A name Kodiak looks up while it runs: a server's host (A and AAAA) or a group's SRV name. */
public record DnsName(Kind kind, String name) {
    public enum Kind {
        ADDRESSES("A/AAAA"),
        SRV("SRV");

        final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    /** A, AAAA or SRV, as /upstreams and the metrics name the query. */
    public String type() {
        return kind.label;
    }

    @Override
    public String toString() {
        return name + " (" + kind.label + ")";
    }
}
