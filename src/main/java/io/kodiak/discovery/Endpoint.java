package io.kodiak.discovery;

/**
 * One address an answer gives: for a host's A/AAAA answer, just the address ({@code port} and
 * {@code weight} 0: the server's own); for an SRV answer, a target's address with the record's
 * port, weight and priority. {@code target}: the name the address belongs to.
 */
public record Endpoint(String address, int port, int weight, int priority, String target) implements Comparable<Endpoint> {

    static Endpoint address(String address, String target) {
        return new Endpoint(address, 0, 0, 0, target);
    }

    /** Answers are compared as sets: the order a server sends records in changes nothing. */
    @Override
    public int compareTo(Endpoint other) {
        int c = address.compareTo(other.address);
        if (c == 0) {
            c = Integer.compare(port, other.port);
        }
        if (c == 0) {
            c = Integer.compare(priority, other.priority);
        }
        if (c == 0) {
            c = Integer.compare(weight, other.weight);
        }
        return c != 0 ? c : target.compareTo(other.target);
    }
}
